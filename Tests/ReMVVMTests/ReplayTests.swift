import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// Rule 20 of docs/store-semantics.md: replaying the reduced actions through the reducers alone,
/// from the initial state or from a snapshot, gives the same state and the same next version;
/// middleware side effects are not replayed.
@Suite struct ReplayTests {
    /// Counts its calls; a login also dispatches an increase (a side effect that reduces).
    final class SideEffectMiddleware: AnyMiddleware, Sendable {
        let calls = Lock(0)

        func onNext<State>(
            for state: State,
            action: any StoreAction,
            interceptor: Interceptor<any StoreAction, State>,
            dispatcher: any Dispatcher
        ) {
            calls.withLock { $0 += 1 }
            interceptor.next()
            if action is Login {
                dispatcher.dispatch(action: Increase())
            }
        }
    }

    /// Runs a few dispatches and returns the store and every reduced action, in version order.
    private func recordedHistory() throws -> (Store<AppState>, [any StoreAction]) {
        let store = try Store.example(middleware: [SideEffectMiddleware()])
        let reduced = Lock<[any StoreAction]>([])
        store.addPublicationHandler { publication in reduced.withLock { $0.append(publication.action) } }
        store.dispatch(action: Increase())
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))
        store.dispatch(action: Decrease())
        store.dispatch(action: Logout())
        store.dispatch(action: Increase())
        return (store, reduced.withLock { $0 })
    }

    @Test func rule20_replayingFromTheInitialStateGivesTheSameStateAndVersionWithoutMiddleware() throws {
        let (original, reduced) = try recordedHistory()
        #expect(reduced.count == 6, "five dispatches and one increase the middleware dispatched")

        let middleware = SideEffectMiddleware()
        let restored = try Store.example(middleware: [middleware])
        for action in reduced {
            restored.replay(action)
        }
        #expect(restored.snapshot.version == original.snapshot.version)
        #expect(restored.state == original.state)
        #expect(middleware.calls.withLock { $0 } == 0, "no middleware ran during the replay")

        restored.dispatch(action: Increase())
        #expect(restored.version == original.version + 1, "versions continue")
    }

    @Test func rule20_replayingFromASnapshotGivesTheSameStateAndVersion() throws {
        let (original, reduced) = try recordedHistory()
        let snapshotState = try Store.example()
        for action in reduced.prefix(3) {
            snapshotState.replay(action)
        }
        let snapshot = snapshotState.snapshot
        #expect(snapshot.version == 3)

        let restored = try Store.example()
        restored.restore(state: snapshot.state, version: snapshot.version)
        let published = Lock<[UInt64]>([])
        restored.addPublicationHandler { publication in published.withLock { $0.append(publication.version) } }
        for action in reduced.dropFirst(3) {
            restored.replay(action)
        }
        #expect(restored.snapshot.version == original.snapshot.version)
        #expect(restored.state == original.state)
        #expect(published.withLock { $0 } == [4, 5, 6], "replayed reduces are published in order")
    }

    @Test func rule20_replayingAPageAtOnceGivesTheSameStateAndPublishesEveryVersionInOrder() throws {
        let (original, reduced) = try recordedHistory()
        let middleware = SideEffectMiddleware()
        let restored = try Store.example(middleware: [middleware])
        let published = Lock<[UInt64]>([])
        restored.addPublicationHandler { publication in published.withLock { $0.append(publication.version) } }
        #expect(restored.replay(contentsOf: Array(reduced.prefix(2))) == 2)
        #expect(restored.replay(contentsOf: []) == 2, "nothing to replay: the current version")
        #expect(restored.replay(contentsOf: Array(reduced.dropFirst(2))) == original.version)
        #expect(restored.state == original.state)
        #expect(published.withLock { $0 } == Array(1...original.version), "every version published once, in order")
        #expect(middleware.calls.withLock { $0 } == 0, "no middleware ran during the replay")
    }

    @Test func rule20_reducedGivesTheStateAReplayWouldAndLeavesTheStoreAlone() throws {
        let (original, reduced) = try recordedHistory()
        let store = try Store.example()
        let published = Lock(0)
        store.addPublicationHandler { _ in published.withLock { $0 += 1 } }
        var state = store.state
        for action in reduced {
            state = store.reduced(state, with: action)
        }
        #expect(state == original.state)
        #expect(store.version == 0 && store.state == AppState(), "the store's own state and version are untouched")
        #expect(published.withLock { $0 } == 0, "nothing is published")
    }
}
