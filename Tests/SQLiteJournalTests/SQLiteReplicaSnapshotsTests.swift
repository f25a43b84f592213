import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// A replica's data directory keeps each store's snapshots (`docs/replicas.md`, "Many stores");
/// the last snapshots of many stores stopped together are stored in one transaction.
@Suite struct SQLiteReplicaSnapshotsTests {
    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    private func description(_ id: String) throws -> StoreDescription {
        StoreDescription(id: try StoreID(id), version: 0, createdAt: 1, lastActionAt: nil, incarnation: "inc-\(id)")
    }

    @Test func theLastSnapshotsOfManyStoresAreStoredTogetherAndAStoreWithoutARowIsSkipped() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-replica-snapshots")
        let file = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { file.close() }
        let a = try file.replicaStorage(for: description("a"))
        let b = try file.replicaStorage(for: description("b"))
        try a.saveSnapshot(snapshot(1))
        let saved = try file.saveSnapshots([
            try StoreID("a"): snapshot(4), try StoreID("b"): snapshot(2), try StoreID("never-loaded"): snapshot(9), .default: snapshot(3),
        ])
        #expect(saved == [try StoreID("a"), try StoreID("b")])
        #expect(try a.snapshot(atOrBefore: .max) == snapshot(4))
        #expect(try a.snapshot(atOrBefore: 3) == snapshot(1), "the one before is kept")
        #expect(try b.snapshot(atOrBefore: .max) == snapshot(2))
        #expect(try file.snapshot(atOrBefore: .max) == nil, "default's snapshots are the file's own, not written here")
    }
}
