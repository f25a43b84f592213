import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// A store's snapshot in the server's own journal does not wait for a sync of its own (the next
/// commit, or the close, makes it durable: stores unloaded together cost one sync); the store
/// `default`'s and a replica's store's do (`SQLiteJournalStorage.saveSnapshot(_:of:synced:)`).
@Suite struct SQLiteSnapshotSyncTests {
    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000)
    }

    @Test func aJournalStoresSnapshotSkipsItsOwnSyncAndTheWriterSyncsEveryCommitAgainAfter() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-snapshot-sync")
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            defer { database.close() }
            let room = try database.newStore("room-1")
            try room.append([record(1), record(2)], answers: [])
            try room.saveSnapshot(snapshot(2))
            #expect(database.snapshotsWithoutOwnSync.withLock { $0 } == 1)
            // FULL again: the next commit (any store's) is synced, and with it the snapshot.
            #expect(try database.writerSynchronousLevel() == 2)
            try room.append([record(3)], answers: [])
        }
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { database.close() }
        let room = try #require(try database.storage(for: StoreID("room-1")))
        let recovery = try room.recover()
        #expect(recovery.snapshot == snapshot(2) && recovery.lastVersion == 3)
    }

    @Test func theDefaultStoresAndAReplicasStoresSnapshotsAreSyncedOnTheirOwn() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-snapshot-sync")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { database.close() }
        try database.append([record(1)], answers: [])
        try database.saveSnapshot(snapshot(1))
        let replicaStore = try database.replicaStorage(for: StoreDescription(
            id: StoreID("room-2"), version: 1, createdAt: 1, lastActionAt: nil, incarnation: "incarnation-1"
        ))
        try replicaStore.saveSnapshot(snapshot(1))
        #expect(database.snapshotsWithoutOwnSync.withLock { $0 } == 0)
        #expect(try database.writerSynchronousLevel() == 2)
        #expect(try replicaStore.snapshot(atOrBefore: 1) == snapshot(1))
    }

    @Test func withoutFullSyncThereIsNothingToSkip() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-snapshot-sync")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .normal)
        defer { database.close() }
        let room = try database.newStore("room-1")
        try room.saveSnapshot(snapshot(0))
        #expect(database.snapshotsWithoutOwnSync.withLock { $0 } == 0)
        #expect(try database.writerSynchronousLevel() == 1)
    }
}
