import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// Rules 1, 3, 4, 5, 7, 9 and 10 of docs/store-semantics.md: what middleware can do with an action.
@Suite struct MiddlewareTests {
    @Test func rule1_middlewareRunsInOrderAndTheReducerRunsOnceAfterTheLast() throws {
        let recorded = try RecordedStore(recording: ["first", "second"], observers: ["observer"])

        recorded.store.dispatch(action: Increase())

        #expect(recorded.log == [
            "first Increase", "second Increase",
            "observer will 0", "observer did 1 old 0",
            "second completion", "first completion",
            "second next returned", "first next returned",
        ])
        #expect(recorded.store.state.counter == 1)
        #expect(recorded.store.version == 1)
    }

    @Test func rule3_middlewareThatNeverCallsNextLeavesStateUnchanged() throws {
        let completions = Lock<[AppState]>([])
        let recorded = try RecordedStore(observers: ["observer"]) { recorder in [
            CompletionRecordingMiddleware(received: completions),  // registers one before the stop
            StoppingMiddleware(),
            RecordingMiddleware(name: "later", recorder: recorder),
        ] }

        recorded.store.dispatch(action: Increase())

        #expect(recorded.store.state == AppState())
        #expect(recorded.store.version == 0)
        #expect(recorded.log.isEmpty, "no later middleware, no will/didReduce")
        #expect(completions.withLock { $0 }.isEmpty, "no completion, not even one an earlier middleware registered")
    }

    @Test func rule4_nextWithAnActionReplacesItForLaterMiddlewareAndTheReducer() throws {
        struct ReplaceAnyWithLogin: AnyMiddleware {
            func onNext<State>(
                for state: State, action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
            ) {
                interceptor.next(action: Login(firstName: "Ada", lastName: "Lovelace"))
            }
        }
        let recorder = Recorder()
        let store = try Store.example(middleware: [
            ReplaceAnyWithLogin(),
            RecordingMiddleware(name: "later", recorder: recorder),
        ])

        store.dispatch(action: Increase())

        #expect(recorder.log.first == "later Login")
        #expect(store.state == AppState(counter: 0, user: User(firstName: "Ada", lastName: "Lovelace")))
    }

    @Test func rule5_completionReceivesTheStateRightAfterTheReduceAndTypedMiddlewareItsSubstate() throws {
        let rootStates = Lock<[AppState]>([])
        let counterStates = Lock<[Int]>([])
        struct RootCompletion: AnyMiddleware {
            let states: Lock<[AppState]>
            func onNext<State>(
                for state: State, action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
            ) {
                let states = states
                interceptor.next { state in
                    if let state = state as? AppState { states.withLock { $0.append(state) } }
                }
            }
        }
        struct CounterCompletion: Middleware {
            let states: Lock<[Int]>
            func onNext(
                for state: Int, action: Increase,
                interceptor: Interceptor<Increase, Int>, dispatcher: any Dispatcher
            ) {
                let states = states
                interceptor.next { counter in states.withLock { $0.append(counter) } }
            }
        }
        let store = try Store.example(middleware: [
            RootCompletion(states: rootStates),
            CounterCompletion(states: counterStates),
        ])

        store.dispatch(action: Increase())
        store.dispatch(action: Increase())

        #expect(rootStates.withLock { $0 } == [AppState(counter: 1), AppState(counter: 2)])
        #expect(counterStates.withLock { $0 } == [1, 2])
    }

    /// "Right after the reduce": not the store's state when the completion runs, which a
    /// dispatch nested in between (an observer's, rule 8) has moved on.
    @Test func rule5_aCompletionGetsTheStateOfItsOwnReduceAfterANestedDispatch() throws {
        final class IncreasesOnce: StateObserver {
            let store: Store<AppState>
            var fired = false
            init(store: Store<AppState>) { self.store = store }
            func didReduce(state: Int, oldState: Int?) {
                guard oldState != nil, !fired else { return }
                fired = true
                store.dispatch(action: Increase())
            }
        }
        let received = Lock<[AppState]>([])
        let store = try Store.example(middleware: [CompletionRecordingMiddleware(received: received)])
        let observer = IncreasesOnce(store: store)
        store.add(observer: observer)

        store.dispatch(action: Increase())

        #expect(store.state.counter == 2)
        #expect(received.withLock { $0 }.map(\.counter) == [2, 1], "the nested dispatch's completion first, then the outer one's with its own state")
    }

    @Test func rule7_nextCalledTwiceReducesTwice() throws {
        struct Twice: AnyMiddleware {
            func onNext<State>(
                for state: State, action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
            ) {
                interceptor.next()
                interceptor.next()
            }
        }
        let store = try Store.example(middleware: [Twice()])

        store.dispatch(action: Increase())

        #expect(store.state.counter == 2)
        #expect(store.version == 2)
    }

    @Test func rule9_convertingMiddlewareReducesOnlyTheNewActionFromTheFirstMiddleware() throws {
        struct ConvertLogoutToDecrease: Middleware {
            func onNext(
                for state: AppState, action: Logout,
                interceptor: Interceptor<Logout, AppState>, dispatcher: any Dispatcher
            ) {
                dispatcher.dispatch(action: Decrease())
            }
        }
        let recorder = Recorder()
        let store = try Store.example(middleware: [
            RecordingMiddleware(name: "first", recorder: recorder),
            ConvertLogoutToDecrease(),
            RecordingMiddleware(name: "last", recorder: recorder),
        ])

        store.dispatch(action: Logout())

        #expect(store.state.counter == -1)
        #expect(store.version == 1, "only the converted action is reduced")
        #expect(recorder.log.filter { !$0.hasSuffix("returned") && !$0.hasSuffix("completion") } == [
            "first Logout", "first Decrease", "last Decrease",
        ])
    }

    @Test func rule10_typedMiddlewarePassesThroughActionsOfOtherTypes() throws {
        let seen = Lock<[String]>([])
        struct LoginOnly: Middleware {
            let seen: Lock<[String]>
            func onNext(
                for state: User?, action: Login,
                interceptor: Interceptor<Login, User?>, dispatcher: any Dispatcher
            ) {
                seen.withLock { $0.append("login while \(state == nil ? "logged out" : "logged in")") }
                interceptor.next()
            }
        }
        let store = try Store.example(middleware: [LoginOnly(seen: seen)])

        store.dispatch(action: Increase())
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))
        store.dispatch(action: Decrease())

        #expect(seen.withLock { $0 } == ["login while logged out"])
        #expect(store.state == AppState(counter: 0, user: User(firstName: "Ada", lastName: "Lovelace")))
        #expect(store.version == 3)
    }

    @Test func rejectingMiddlewareReportsItsReasonAndNothingIsReduced() throws {
        struct NoSecondLogin: Middleware {
            func onNext(
                for state: User?, action: Login,
                interceptor: Interceptor<Login, User?>, dispatcher: any Dispatcher
            ) {
                guard state == nil else { return interceptor.reject(reason: "already logged in") }
                interceptor.next()
            }
        }
        let store = try Store.example(middleware: [NoSecondLogin()])
        let login = Login(firstName: "Ada", lastName: "Lovelace")

        #expect(store.dispatchAndWait(action: login) == .reduced(version: 1))
        #expect(store.dispatchAndWait([Increase(), login, Increase()])
            == .rejected(reason: "already logged in", index: 1))
        #expect(store.state.counter == 1, "actions before the rejected one apply, later ones are not dispatched")
        #expect(store.version == 2)
    }

    @Test func middlewareThatDoesNotHandleAnActionIsPassedOverAsIfItCalledNext() throws {
        /// Handles only `login`; records every call it gets.
        struct LoginOnly: AnyMiddleware {
            let recorder: Recorder
            func handles(_ action: any StoreAction) -> Bool { action is Login }
            func onNext<State>(
                for state: State, action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
            ) {
                recorder.record("login-only \(type(of: action))")
                interceptor.next()
            }
        }
        let recorded = try RecordedStore(observers: ["observer"]) { recorder in [
            RecordingMiddleware(name: "first", recorder: recorder),
            LoginOnly(recorder: recorder),
            RecordingMiddleware(name: "last", recorder: recorder),
        ] }
        let store = recorded.store

        store.dispatch(action: Increase())
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        #expect(recorded.log == [
            "first Increase", "last Increase",
            "observer will 0", "observer did 1 old 0",
            "last completion", "first completion",
            "last next returned", "first next returned",
            "first Login", "login-only Login", "last Login",
            "observer will 1", "observer did 1 old 1",
            "last completion", "first completion",
            "last next returned", "first next returned",
        ])
        #expect(store.state.counter == 1)
        #expect(store.state.user?.firstName == "Ada")
        #expect(store.version == 2)
    }

    @Test func typedMiddlewareHandlesOnlyActionsOfItsType() {
        let middleware = LoginMiddleware(clock: Services().clock)
        #expect(middleware.handles(Login(firstName: "Ada", lastName: "Lovelace")))
        #expect(!middleware.handles(Increase()))
        let erased: any AnyMiddleware = middleware
        #expect(!erased.handles(Increase()), "the store sees it as any AnyMiddleware: the typed answer, not the default")
    }
}
