import ConcurrencyKit
import ExampleApp
import Foundation
import ReMVVM
import Testing

/// Rules 2, 6 and 8 of docs/store-semantics.md: the order of one dispatch, deferred `next`, nesting.
@Suite struct DispatchOrderTests {
    @Test func rule2_oneDispatchNotifiesWillThenReducesThenDidThenCompletionsInnermostFirstThenReturns() throws {
        let recorded = try RecordedStore(recording: ["outer", "inner"], observers: ["a", "b"])

        recorded.store.dispatch(action: Increase())

        #expect(recorded.log == [
            "outer Increase", "inner Increase",
            "a will 0", "b will 0",
            "a did 1 old 0", "b did 1 old 0",
            "inner completion", "outer completion",
            "inner next returned", "outer next returned",
        ])
    }

    @Test func rule6_nextCalledLaterFromAnotherThreadReducesTheStateCurrentAtThatMoment() throws {
        let deferring = DeferringMiddleware(holdingOnly: Login.self)
        let store = try Store.example(middleware: [deferring])
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))
        #expect(store.version == 0, "the login waits in the middleware")
        store.dispatch(action: Increase())
        store.dispatch(action: Increase())

        let released = Signal()
        let thread = Thread {
            deferring.releaseFirst()
            released.fire()
        }
        thread.start()

        #expect(released.wait())
        #expect(store.state == AppState(counter: 2, user: User(firstName: "Ada", lastName: "Lovelace")))
        #expect(store.version == 3)
    }

    @Test func rule6_middlewareWaitingForNextFromAnotherThreadDoesNotDeadlock() throws {
        struct WaitsForOtherThread: AnyMiddleware {
            let otherThreadReturned: Signal
            let timedOut: Lock<Bool>
            func onNext<State>(
                for state: State, action: any StoreAction,
                interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
            ) {
                let returned = otherThreadReturned
                Thread {
                    interceptor.next()
                    returned.fire()
                }.start()
                // Blocks the processing thread until the other thread's `next` returns.
                let finished = returned.wait(seconds: 5)
                timedOut.withLock { $0 = !finished }
            }
        }
        let timedOut = Lock(false)
        let store = try Store.example(middleware: [WaitsForOtherThread(otherThreadReturned: Signal(), timedOut: timedOut)])

        store.dispatch(action: Increase())

        #expect(timedOut.withLock { $0 } == false, "the other thread's next must not block on the waiting middleware")
        #expect(store.state.counter == 1, "the queued next is processed before dispatch returns")
        #expect(store.version == 1)
    }

    @Test func rule8_dispatchFromMiddlewareIsProcessedAtOnceThenTheOuterDispatchResumes() throws {
        struct LoginAlsoIncreases: Middleware {
            let recorder: Recorder
            func onNext(
                for state: AppState, action: Login,
                interceptor: Interceptor<Login, AppState>, dispatcher: any Dispatcher
            ) {
                dispatcher.dispatch(action: Increase())
                recorder.record("nested done, counter seen by outer: \(state.counter)")
                interceptor.next()
            }
        }
        let recorded = try RecordedStore(observers: ["o"]) { recorder in [LoginAlsoIncreases(recorder: recorder)] }

        recorded.store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        #expect(recorded.log == [
            "o will 0", "o did 1 old 0",
            "nested done, counter seen by outer: 0",
            "o will 1", "o did 1 old 1",
        ])
        #expect(recorded.store.state == AppState(counter: 1, user: User(firstName: "Ada", lastName: "Lovelace")))
    }

    @Test func rule8_dispatchFromObserverAndCompletionIsNestedAndNeverDeadlocks() throws {
        final class IncreasesUntilThree: StateObserver {
            let store: Store<AppState>
            init(store: Store<AppState>) { self.store = store }
            func didReduce(state: Int, oldState: Int?) {
                if oldState != nil, state < 3 { store.dispatch(action: Increase()) }
            }
        }
        struct CompletionDecreasesOnLogout: Middleware {
            func onNext(
                for state: AppState, action: Logout,
                interceptor: Interceptor<Logout, AppState>, dispatcher: any Dispatcher
            ) {
                interceptor.next { _ in dispatcher.dispatch(action: Decrease()) }
            }
        }
        let store = try Store.example(middleware: [CompletionDecreasesOnLogout()])
        let observer = IncreasesUntilThree(store: store)
        store.add(observer: observer)

        store.dispatch(action: Increase())
        #expect(store.state.counter == 3)
        #expect(store.version == 3)

        store.remove(observer: observer)
        store.dispatch(action: Logout())
        #expect(store.state.counter == 2)
        #expect(store.version == 5)
    }

    @Test func reducerAppliesToStateChangedByADispatchFromWillReduce() throws {
        final class IncreasesBeforeLogin: StateObserver {
            let store: Store<AppState>
            var fired = false
            init(store: Store<AppState>) { self.store = store }
            func willReduce(state: AppState) {
                guard !fired else { return }
                fired = true
                store.dispatch(action: Increase())
            }
            func didReduce(state: AppState, oldState: AppState?) {}
        }
        let store = try Store.example()
        let observer = IncreasesBeforeLogin(store: store)
        store.add(observer: observer)

        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        #expect(store.state == AppState(counter: 1, user: User(firstName: "Ada", lastName: "Lovelace")),
                "no action is lost when willReduce dispatches")
        #expect(store.version == 2)
    }
}
