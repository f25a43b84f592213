import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// ``Store/propose(_:late:)``: middleware runs, nothing is reduced, and what would reach the
/// reducer is collected in order (several replicas: middleware once, the log's order for all).
@Suite struct ProposeTests {
    /// Replaces a login by a stamped one, and after every login dispatches an increase.
    struct StampAndCount: AnyMiddleware {
        func onNext<State>(
            for state: State,
            action: any StoreAction,
            interceptor: Interceptor<any StoreAction, State>,
            dispatcher: any Dispatcher
        ) {
            guard let login = action as? Login else { return interceptor.next() }
            interceptor.next(action: Login(firstName: login.user.firstName.uppercased(), lastName: login.user.lastName))
            dispatcher.dispatch(action: Increase())
        }
    }

    /// Rejects a second login while one is logged in, as seen in the state it is given.
    struct NoSecondLogin: Middleware {
        func onNext(for state: User?, action: Login, interceptor: Interceptor<Login, User?>, dispatcher: any Dispatcher) {
            guard state == nil else { return interceptor.reject(reason: "already logged in") }
            interceptor.next()
        }
    }

    @Test func collectsReplacedAndNestedActionsInOrderAndReducesNothing() throws {
        let store = try Store.example(middleware: [StampAndCount()])
        let published = Lock(0)
        store.addPublicationHandler { _ in published.withLock { $0 += 1 } }

        let proposal = store.propose([Increase(), Login(firstName: "Ada", lastName: "Lovelace"), Decrease()], late: { _ in })

        #expect(proposal.rejection == nil && proposal.refusal == nil)
        let names = proposal.actions.map { String(describing: type(of: $0)) }
        #expect(names == ["Increase", "Login", "Increase", "Decrease"])
        #expect((proposal.actions[1] as? Login)?.user.firstName == "ADA", "the replacement is what is proposed")
        #expect(store.version == 0 && store.state == AppState(), "nothing reduced")
        #expect(published.withLock { $0 } == 0, "nothing published")

        // Replaying the proposal gives what a plain dispatch gives.
        let direct = try Store.example(middleware: [StampAndCount()])
        #expect(direct.dispatchAndWait([Increase(), Login(firstName: "Ada", lastName: "Lovelace"), Decrease()]) == .reduced(version: 4))
        for action in proposal.actions { store.replay(action) }
        #expect(store.state == direct.state && store.version == direct.version)
    }

    @Test func middlewareSeesTheSpeculativeStateOfTheActionsProposedBefore() throws {
        let store = try Store.example(middleware: [NoSecondLogin()])
        let login = Login(firstName: "Ada", lastName: "Lovelace")

        let proposal = store.propose([Increase(), login, Increase(), login, Increase()], late: { _ in })

        #expect(proposal.rejection?.reason == "already logged in")
        #expect(proposal.rejection?.index == 3, "the second login sees the first one's user")
        #expect(proposal.actions.count == 3, "the actions before the rejected one")
        #expect(store.state == AppState(), "still nothing reduced")
    }

    @Test func completionsRunWithTheSpeculativeStateAfterTheirAction() throws {
        struct Completing: AnyMiddleware {
            let seen: Lock<[Int]>
            func onNext<State>(for state: State, action: any StoreAction, interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher) {
                interceptor.next { state in seen.withLock { $0.append((state as! AppState).counter) } }
            }
        }
        let seen = Lock<[Int]>([])
        let store = try Store.example(middleware: [Completing(seen: seen)])
        store.dispatch(action: Increase())

        _ = store.propose([Increase(), Increase()], late: { _ in })

        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(store.state.counter == 1)
    }

    @Test func anActionPassedOnAfterTheProposalEndedGoesToLate() throws {
        let deferring = DeferringMiddleware()
        let store = try Store.example(middleware: [deferring])
        let late = Lock<[String]>([])

        let proposal = store.propose([Increase()], late: { action in late.withLock { $0.append(String(describing: type(of: action))) } })
        #expect(proposal.actions.isEmpty, "the middleware held the action")

        deferring.releaseFirst()
        #expect(late.withLock { $0 } == ["Increase"])
        #expect(store.version == 0)
    }

    @Test func aReduceCheckRefusesInAProposalToo() throws {
        let store = try Store.example()
        store.addReduceCheck { $0 is Decrease ? "no wire name" : nil }

        let proposal = store.propose([Increase(), Decrease(), Increase()], late: { _ in })

        #expect(proposal.refusal?.reason == "no wire name" && proposal.refusal?.index == 1)
        #expect(proposal.actions.count == 1)
    }
}
