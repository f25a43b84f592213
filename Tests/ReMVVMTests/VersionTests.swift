import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// Rules 18 and 19 of docs/store-semantics.md: versions and ordered publication.
@Suite struct VersionTests {
    @Test func rule18_everyReduceIncrementsTheVersionByOne() throws {
        let store = try Store.example(middleware: [])
        #expect(store.version == 0)
        store.dispatch(action: Increase())
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))
        #expect(store.version == 2)
        let snapshot = store.snapshot
        #expect(snapshot.version == 2)
        #expect(snapshot.state == AppState(counter: 1, user: User(firstName: "Ada", lastName: "Lovelace")))
    }

    @Test func rule18_stoppedActionDoesNotChangeTheVersion() throws {
        let store = try Store.example(middleware: [StoppingMiddleware()])
        store.dispatch(action: Increase())
        #expect(store.version == 0)
        #expect(store.dispatchAndWait(action: Increase()) == .accepted)
    }

    @Test func rule19_publicationIsInReduceOrderEvenWhenObserversSeeNestedDispatchesOutOfOrder() throws {
        final class NestsOnFirstReduce: StateObserver {
            let store: Store<AppState>
            let recorder: Recorder
            init(store: Store<AppState>, recorder: Recorder) {
                self.store = store
                self.recorder = recorder
            }
            func didReduce(state: AppState, oldState: AppState?) {
                recorder.record("nesting observer saw \(state.counter)")
                if oldState != nil, state.counter == 1 { store.dispatch(action: Increase()) }
            }
        }
        let recorder = Recorder()
        let store = try Store.example()
        let published = Lock<[String]>([])
        let start = store.addPublicationHandler { publication in
            published.withLock { $0.append("v\(publication.version) \(type(of: publication.action)) \(publication.state.counter)") }
        }
        let nesting = NestsOnFirstReduce(store: store, recorder: recorder)
        let plain = CounterLogObserver(name: "plain", recorder: recorder)
        store.add(observer: nesting)
        store.add(observer: plain)
        recorder.clear()

        store.dispatch(action: Increase())

        #expect(start.version == 0)
        #expect(recorder.log.filter { !$0.contains("will") } == [
            "nesting observer saw 1",
            "nesting observer saw 2", "plain did 2 old 1",
            "plain did 1 old 0",
        ], "the plain observer sees version 2 before version 1")
        #expect(published.withLock { $0 } == ["v1 Increase 1", "v2 Increase 2"])
    }

    @Test func publicationHandlerStartsRightAfterTheSnapshotItReturns() throws {
        let store = try Store.example()
        store.dispatch(action: Increase())
        let versions = Lock<[UInt64]>([])
        let start = store.addPublicationHandler { publication in versions.withLock { $0.append(publication.version) } }
        store.dispatch(action: Increase())
        #expect(start.version == 1)
        #expect(start.state.counter == 1)
        #expect(versions.withLock { $0 } == [2])
    }
}
