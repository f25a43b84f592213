import ConcurrencyKit
import ExampleApp
import HTTPTestSupport
import Foundation
import ReMVVM
import Testing

/// Rule 13 of docs/store-semantics.md: dispatches from many threads are serialized; nothing lost or doubled.
@Suite(.tags(.load)) struct ConcurrentDispatchLoadTests {
    @Test func rule13_dispatchesFromManyThreadsAreSerializedWithNoActionLostOrAppliedTwice() throws {
        let dispatchers = 4
        let perThread = 25_000
        let total = UInt64(dispatchers * perThread)
        let store = try Store.example()
        let published = Lock<[UInt64]>([])
        published.withLock { $0.reserveCapacity(Int(total)) }
        store.addPublicationHandler { publication in published.withLock { $0.append(publication.version) } }
        let dispatchersDone = Lock(0)

        let errors = runOnThreads(dispatchers + 3) { index in
            switch index {
            case 0..<dispatchers:
                for _ in 0..<perThread {
                    store.dispatch(action: Increase())
                }
                dispatchersDone.withLock { $0 += 1 }
            case dispatchers:
                // A reader: versions and states it sees never go backwards and always agree.
                var lastVersion: UInt64 = 0
                while dispatchersDone.withLock({ $0 }) < dispatchers {
                    let snapshot = store.snapshot
                    precondition(snapshot.version >= lastVersion, "version went backwards")
                    precondition(UInt64(snapshot.state.counter) == snapshot.version, "state and version disagree")
                    lastVersion = snapshot.version
                }
            default:
                // Observers come and go while dispatches run.
                while dispatchersDone.withLock({ $0 }) < dispatchers {
                    let observer = SubstateObserver<Int>()
                    store.add(observer: observer)
                    _ = store.state.counter
                    store.remove(observer: observer)
                }
            }
        }

        #expect(errors.isEmpty)
        #expect(store.state.counter == Int(total))
        #expect(store.version == total)
        let versions = published.withLock { $0 }
        #expect(versions.count == Int(total))
        #expect(versions == Array(1...total), "publication saw 1...\(total) in order, none missing or repeated")
    }

    @Test func rule13_dispatchAndWaitFromManyThreadsReportsDistinctVersions() throws {
        let store = try Store.example()
        let versions = Lock<[UInt64]>([])

        let errors = runOnThreads(4) { _ in
            for _ in 0..<1_000 {
                if case .reduced(let version) = store.dispatchAndWait(action: Increase()) {
                    versions.withLock { $0.append(version) }
                }
            }
        }

        #expect(errors.isEmpty)
        #expect(store.state.counter == 4_000)
        #expect(versions.withLock { $0 }.sorted() == Array(1...4_000), "each waiting caller saw its own reduce")
    }

    @Test func rule13_batchIsAppliedWithNoOtherActionInBetween() throws {
        let store = try Store.example()
        let published = Lock<[String]>([])
        store.addPublicationHandler { publication in
            published.withLock { $0.append(String(describing: type(of: publication.action))) }
        }

        let errors = runOnThreads(3) { index in
            for _ in 0..<300 {
                if index == 0 {
                    _ = store.dispatchAndWait([Login(firstName: "A", lastName: "B"), Logout(), Decrease()])
                } else {
                    store.dispatch(action: Increase())
                }
            }
        }

        #expect(errors.isEmpty)
        let log = published.withLock { $0 }
        #expect(log.count == 300 * 3 + 600)
        for (index, name) in log.enumerated() where name == "Login" {
            #expect(Array(log[index..<index + 3]) == ["Login", "Logout", "Decrease"])
        }
        #expect(store.state.counter == 600 - 300)
    }
}
