import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Which records retention may remove, and which snapshots count as the kept two
/// (`docs/journal.md`, "Restart, snapshots and retention"): nothing goes while a store has one
/// usable snapshot, then never past the older of its two.
@Suite struct SQLiteSnapshotRetentionTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    /// An open journal of records 1...`records` (left in `table`) and snapshots of `snapshots`.
    private func journal(
        records: UInt64, snapshots: [UInt64], in table: RecordTable = .actions, _ directory: TemporaryDirectory
    ) throws -> SQLiteJournalStorage {
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        try storage.append((1...records).map(record))
        for version in snapshots { try storage.saveSnapshot(snapshot(version)) }
        table.close(storage)
        return try SQLiteJournalStorage(directory: directory.path, sync: .off)
    }

    @Test(arguments: RecordTable.allCases)
    func aStoreWhoseOnlySnapshotIsDamagedRestartsFromItsRecords(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-retention")
        let storage = try journal(records: 30, snapshots: [20], in: table, directory)
        try storage.removeRecords(through: 25)
        #expect(try storage.recover().earliestVersion == 1, "one snapshot: retention keeps every record")
        try SQLiteDatabase(path: storage.path, create: false).execute("UPDATE snapshots SET state = CAST('{\"counter\":0}' AS BLOB)")
        storage.close()

        let reopened = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { reopened.close() }
        let recovery = try reopened.recover()
        #expect(recovery == JournalRecovery(snapshot: nil, lastVersion: 30, earliestVersion: 1, damagedSnapshots: [20]))
        #expect(try reopened.records(after: 0, limit: 100).map(\.version) == Array(1...30))
    }

    @Test func aSecondSnapshotLetsRetentionRemoveUpToTheOlderOne() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-retention")
        let storage = try journal(records: 30, snapshots: [10], directory)
        defer { storage.close() }
        try storage.removeRecords(through: 8)
        #expect(try storage.recover().earliestVersion == 1)
        try storage.saveSnapshot(snapshot(20))
        try storage.removeRecords(through: 8)
        #expect(try storage.recover().earliestVersion == 9)
        try storage.removeRecords(through: 25)
        #expect(try storage.recover().earliestVersion == 11, "never past the older of the two")
    }

    @Test func aStoreOtherThanDefaultWithOneSnapshotKeepsEveryRecord() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-retention")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let room = try database.newStore("room-1")
        try room.append((1...10).map(record))
        try room.saveSnapshot(snapshot(10))
        try room.removeRecords(through: 10)
        #expect(try room.records(after: 0, limit: 100).map(\.version) == Array(1...10))
        try room.saveSnapshot(snapshot(10))
        try room.removeRecords(through: 10)
        #expect(try room.records(after: 0, limit: 100).count == 10, "the same snapshot written again is still one")
    }

    /// A snapshot row whose version was damaged: beyond the last record, not an integer, or
    /// another integer (its checksum no longer matches in each case).
    static let damagedVersions = ["1000", "'twenty'", "15"]

    /// An open journal of records 1...30 and snapshots of 10 and 20, whose row of 20 was then
    /// given the version `damaged` (SQL) behind the storage's back.
    private func journal(damagingVersion20To damaged: String, _ directory: TemporaryDirectory) throws -> SQLiteJournalStorage {
        let storage = try journal(records: 30, snapshots: [10, 20], directory)
        try SQLiteDatabase(path: storage.path, create: false).execute("UPDATE snapshots SET version = \(damaged) WHERE version = 20")
        return storage
    }

    @Test(arguments: damagedVersions)
    func aSnapshotWithADamagedVersionIsPrunedNotKeptAsOneOfTheTwo(damaged: String) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-retention")
        let storage = try journal(damagingVersion20To: damaged, directory)
        defer { storage.close() }
        try storage.saveSnapshot(snapshot(25))
        #expect(try storage.storedSnapshots() == [snapshot(10), snapshot(25)])
        try storage.removeRecords(through: 25)
        #expect(try storage.recover().earliestVersion == 11, "the older of the two kept is 10")
    }

    @Test(arguments: damagedVersions)
    func retentionDoesNotCountASnapshotWhoseVersionWasDamagedSinceItWasWritten(damaged: String) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-retention")
        let storage = try journal(damagingVersion20To: damaged, directory)
        defer { storage.close() }
        try storage.removeRecords(through: 25)
        let records = try storage.records(after: 0, limit: 100)
        #expect(records.first?.version == 1, "one usable snapshot (10) is left: every record is kept")
    }
}
