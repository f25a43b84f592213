import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// What a store's load reads and checks (`docs/journal.md`, "Checksums"): a store other than
/// `default` checks its newest usable snapshot and the records after it — what it replays —, not
/// its older history, which is checked where it is read; the store `default` is still read whole.
@Suite struct SQLiteStoreLoadTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    /// A file whose store `store` holds records 1...`records` and a snapshot of version 5, closed
    /// with its records in `table`; then `damage` (SQL against `actions`, `?` the store's key) is
    /// done to it by hand. The store's view of the file opened again, and the file.
    private func journal(
        _ store: StoreID, records: UInt64 = 8, damage: String, in table: RecordTable, directory: TemporaryDirectory
    ) throws -> (SQLiteJournalStorage, any JournalStorage) {
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            if store != .default { _ = try database.create(store, limit: 10, at: 1) }
            let storage = try #require(try database.storage(for: store))
            try storage.append((1...records).map(record))
            try storage.saveSnapshot(snapshot(5))
            table.close(database)
        }
        let path = directory.path + "/journal.sqlite"
        let key = "(SELECT key FROM stores WHERE id = '\(store)')"
        try SQLiteDatabase(path: path, create: false).execute(table.aim(damage.replacingOccurrences(of: "?", with: key)))
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        return (database, try #require(try database.storage(for: store)))
    }

    private func damaged(_ version: UInt64) -> String {
        "UPDATE actions SET payload = CAST('{\"x\":1}' AS BLOB) WHERE store = ? AND version = \(version)"
    }

    private func missing(_ version: UInt64) -> String {
        "DELETE FROM actions WHERE store = ? AND version = \(version)"
    }

    @Test(arguments: RecordTable.allCases)
    func damageBeforeTheSnapshotDoesNotStopTheLoadAndIsFoundWhereRead(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-load")
        let (database, room) = try journal(
            StoreID("room-1"), damage: damaged(2) + "; " + missing(3), in: table, directory: directory
        )
        defer { database.close() }
        let recovery = try room.recover()
        #expect(recovery.snapshot == snapshot(5) && recovery.lastVersion == 8 && recovery.earliestVersion == 1)
        let history = try room.records(after: 0, limit: 10)
        #expect(history.map(\.version) == [1, 2, 4, 5, 6, 7, 8], "read as it is: the gap is the reader's to find")
        #expect(history.map(\.isIntact) == [true, false, true, true, true, true, true])
    }

    @Test(arguments: RecordTable.allCases)
    func theDefaultStoreIsStillReadWholeAtAStart(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-load")
        let (database, _) = try journal(.default, damage: damaged(2), in: table, directory: directory)
        database.close()
        let error = try recoveryDamage(in: directory)
        #expect(error.message.contains("version 2 of store default does not match its checksum"), "\(error.message)")
    }

    @Test(arguments: RecordTable.allCases)
    func aDamagedRecordAfterTheSnapshotRefusesTheLoadNamingTheStore(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-load")
        let (database, room) = try journal(StoreID("room-1"), damage: damaged(7), in: table, directory: directory)
        defer { database.close() }
        let error = try #require(throws: JournalError.self) { try room.recover() }
        #expect(error.code == .corrupt && error.message.contains("version 7 of store room-1 does not match its checksum"), "\(error.message)")
    }

    @Test(arguments: RecordTable.allCases)
    func aMissingRecordAfterTheSnapshotRefusesTheLoad(table: RecordTable) throws {
        for (version, message) in [(6, "versions 6...6 are missing"), (7, "versions are missing after 6")] {
            let directory = try TemporaryDirectory(prefix: "remvvm-load")
            let (database, room) = try journal(StoreID("room-1"), damage: missing(UInt64(version)), in: table, directory: directory)
            defer { database.close() }
            let error = try #require(throws: JournalError.self) { try room.recover() }
            #expect(error.code == .corrupt && error.message.contains(message), "\(error.message)")
        }
    }

    @Test(arguments: RecordTable.allCases)
    func withNoRecordAfterTheSnapshotTheEdgesComeFromTheIndex(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-load")
        let (database, room) = try journal(StoreID("room-1"), records: 5, damage: damaged(1), in: table, directory: directory)
        defer { database.close() }
        let recovery = try room.recover()
        #expect(recovery.snapshot == snapshot(5) && recovery.lastVersion == 5 && recovery.earliestVersion == 1)
        try room.removeRecords(through: 5)
        #expect(try room.recover().earliestVersion == 1, "one snapshot: retention removes nothing")
        // What an earlier build's retention could leave: every record up to its one snapshot gone.
        try SQLiteDatabase(path: database.path, create: false).execute(table.aim("DELETE FROM actions"))
        let emptied = try room.recover()
        #expect(emptied.lastVersion == 5 && emptied.earliestVersion == nil)
    }

    @Test(arguments: RecordTable.allCases)
    func recordsThatEndBeforeTheSnapshotRefuseTheLoad(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-load")
        let (database, room) = try journal(
            StoreID("room-1"), damage: missing(8) + "; " + missing(7) + "; " + missing(6) + "; " + missing(5) + "; " + missing(4),
            in: table, directory: directory
        )
        defer { database.close() }
        let error = try #require(throws: JournalError.self) { try room.recover() }
        #expect(error.message.contains("the newest snapshot is of version 5 but the records end at 3"), "\(error.message)")
    }
}
