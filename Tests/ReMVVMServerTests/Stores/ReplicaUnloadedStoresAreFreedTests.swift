import ExampleApp
import Foundation
import HTTPTestSupport
import PostgresTestSupport
import ReMVVM
import Synchronization
import Testing

/// A store a replica unloads (least recently used, idle) or that is deleted is freed with its
/// backend and runtime: nothing the replica set up for it (the log's follower, the runtime's
/// snapshot writer and registration, the loader's callbacks) keeps it alive. A replica touching
/// many stores otherwise grows by every store it ever loaded (`docs/benchmarks.md`).
@Suite(.serialized) struct ReplicaUnloadedStoresAreFreedTests {
    /// The stores a replica's loader made, in order, held weakly.
    final class MadeStores: Sendable {
        private let made = Mutex<[UnloadedStoresAreFreedTests.Weak]>([])

        /// Makes a store of the example and keeps a weak reference to it.
        func make() throws -> Store<AppState> {
            let store = try Store.example()
            let weak = UnloadedStoresAreFreedTests.Weak()
            weak.store = store
            made.withLock { $0.append(weak) }
            return store
        }

        /// Which of the stores made are still alive, in the order they were made.
        var alive: [Bool] {
            made.withLock { $0.map { $0.store != nil } }
        }
    }

    /// One replica keeping `default` and one store loaded, with a clock the test moves.
    private static func replica(
        on postgres: PostgresServer, in root: TemporaryDirectory, made: MadeStores, clock: ManualClock
    ) throws -> ReplicaStoresTests.StoreReplica {
        let replica = try ReplicaStoresTests.StoreReplica(
            conninfo: postgres.conninfo, directory: root.path + "/a", name: "a", maxLoaded: 2,
            makeStore: { try made.make() }, now: { clock.now }
        )
        let ready = waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 }
        try #require(ready, "the replica did not reach the log")
        return replica
    }

    @Test func aStoreAReplicaUnloadsIsFreed() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-unload")
        let made = MadeStores()
        let clock = ManualClock()
        let replica = try Self.replica(on: postgres, in: root, made: made, clock: clock)
        for id in ["p", "q"] { #expect(try replica.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try replica.send("POST", "/stores/p/actions", body: #"{"type":"increase"}"#).status == 200)
        #expect(made.alive == [true])

        // Loading q unloads p (one store besides default may be loaded).
        #expect(try replica.send("GET", "/stores/q/state").status == 200)
        #expect(waitUntil(timeout: .seconds(10)) { made.alive == [false, true] }, "the store unloaded for q is released: \(made.alive)")

        // Idle: q goes too.
        clock.advance(seconds: 3_600)
        #expect(replica.server.service.unloadIdleStores() == 1)
        #expect(waitUntil(timeout: .seconds(10)) { made.alive == [false, false] }, "the idle store is released: \(made.alive)")
    }

    @Test func aStoreDeletedWhileLoadedOnAReplicaIsFreed() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-unload")
        let made = MadeStores()
        let replica = try Self.replica(on: postgres, in: root, made: made, clock: ManualClock())
        #expect(try replica.send("PUT", "/stores/gone").status == 201)
        #expect(try replica.send("POST", "/stores/gone/actions", body: #"{"type":"increase"}"#).status == 200)
        #expect(try replica.send("DELETE", "/stores/gone").status == 204)
        #expect(waitUntil(timeout: .seconds(10)) { made.alive == [false] }, "the deleted store is released")
    }
}
