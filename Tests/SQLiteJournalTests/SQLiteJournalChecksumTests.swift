import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Format 2: every record and snapshot carries its CRC-32C, checked when read
/// (`docs/journal.md`, "Checksums" and "Damage").
@Suite struct SQLiteJournalChecksumTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    /// A closed journal of records 1...`records` and snapshots of `snapshots`, changed behind its
    /// back by `damage` (raw SQL: the bytes change, the checksums do not; written against
    /// `actions`, aimed at the table `table` that holds the records).
    private func journal(records: UInt64, snapshots: [UInt64] = [], damage: String? = nil, in table: RecordTable = .actions) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "remvvm-checksum")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        try storage.append((1...records).map(record))
        for version in snapshots { try storage.saveSnapshot(snapshot(version)) }
        table.close(storage)
        if let damage {
            try SQLiteDatabase(path: storage.path, create: false).execute(table.aim(damage))
        }
        return directory
    }

    @Test(arguments: RecordTable.allCases)
    func aRecordWithAChangedByteRefusesTheStartNamingTheStoreVersionFileAndRepair(table: RecordTable) throws {
        for damage in [
            "UPDATE actions SET payload = CAST('{\"a\":1}' AS BLOB) WHERE version = 7",
            "UPDATE actions SET type = 'decrease' WHERE version = 7",
            "UPDATE actions SET time = time + 1 WHERE version = 7",
        ] {
            let directory = try journal(records: 12, snapshots: [10], damage: damage, in: table)
            let error = try recoveryDamage(in: directory)
            let path = directory.path + "/" + SQLiteJournalStorage.fileName
            #expect(error.message.contains("version 7 of store default") && error.message.contains(path), "\(error.message)")
            #expect(error.message.contains("remvvm-server repair \(directory.path)"), "\(error.message)")
        }
    }

    @Test(arguments: RecordTable.allCases)
    func aDamagedRecordReadsBackMarkedNotIntact(table: RecordTable) throws {
        let directory = try journal(records: 12, snapshots: [12], damage: "UPDATE actions SET time = 0 WHERE version = 3", in: table)
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let records = try storage.records(after: 0, limit: 5)
        #expect(records.map(\.isIntact) == [true, true, false, true, true])
    }

    @Test func aDamagedSnapshotIsSkippedForTheOlderOne() throws {
        let directory = try journal(records: 30, snapshots: [10, 20], damage: "UPDATE snapshots SET state = CAST('{\"counter\":21}' AS BLOB) WHERE version = 20")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let recovery = try storage.recover()
        #expect(recovery.snapshot == snapshot(10))
        #expect(recovery.damagedSnapshots == [20])
        #expect(recovery.lastVersion == 30)
        #expect(try storage.snapshot(atOrBefore: 25) == snapshot(10), "a resume passes over it too")
    }

    @Test(arguments: RecordTable.allCases)
    func retentionKeepsTheRecordsAfterTheOlderSnapshotSoThatItCanStandIn(table: RecordTable) throws {
        let directory = try journal(records: 30, snapshots: [10, 20], in: table)
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.removeRecords(through: 25)
        #expect(try storage.recover().earliestVersion == 11)
    }

    @Test(arguments: RecordTable.allCases)
    func withNoUsableBaseLeftTheStartIsRefusedNamingTheFile(table: RecordTable) throws {
        let directory = try journal(records: 30, snapshots: [10, 20], damage: """
            UPDATE snapshots SET time = 2;
            DELETE FROM actions WHERE version <= 15;
            """, in: table)
        let error = try recoveryDamage(in: directory)
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        #expect(error.message.contains(path) && error.message.contains("no usable snapshot"), "\(error.message)")
        #expect(error.message.contains("20, 10") && error.message.contains("do not match their checksums"), "\(error.message)")
    }

    @Test func aFormatOneFileIsUpgradedInPlaceWithTheChecksumsOfItsRows() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-format1")
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        do {
            // The tables as format 1 made them, before checksums.
            let database = try EarlierJournalFormat.create(format: 1, at: path)
            try database.execute("""
                INSERT INTO actions VALUES (1, 'increase', CAST('{}' AS BLOB), 1700000000001), (2, 'increase', CAST('{}' AS BLOB), 1700000000002),
                    (3, 'increase', CAST('{}' AS BLOB), 1700000000003);
                INSERT INTO snapshots VALUES (2, CAST('{"counter":2}' AS BLOB), 1);
                """)
        }
        #expect(try SQLiteJournalFile(directory: directory.path).format == 1, "read as it is, without the lock")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            defer { storage.close() }
            let recovery = try storage.recover()
            #expect(recovery.snapshot == snapshot(2) && recovery.lastVersion == 3)
            #expect(try storage.records(after: 0, limit: 10) == (1...3).map(record), "every record intact")
            try storage.append([record(4)])
        }
        let upgraded = try SQLiteDatabase(path: path, create: false)
        let format = try upgraded.prepare("SELECT value FROM meta WHERE key = 'format'")
        _ = try format.step()
        #expect(format.text(0) == "\(SQLiteJournalStorage.format)", "through formats 2, 3 and 4, to the fold in pieces")
        // A change after the upgrade is caught like any other.
        try upgraded.execute("UPDATE actions SET time = 5 WHERE version = 2")
        let error = try recoveryDamage(in: directory)
        #expect(error.message.contains("version 2 of store default"), "\(error.message)")
    }

    @Test(arguments: RecordTable.allCases)
    func aPageSQLiteCannotReadRefusesTheStart(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-page")
        let payload = Array(("{\"text\":\"" + String(repeating: "x", count: 400) + "\"}").utf8)
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            try storage.append((1...400).map { JournalRecord(version: $0, type: "note", payload: payload, time: 1) })
            table.close(storage)
            // The fold into `actions` left the log's pages free, before them in the file.
            if table == .actions { try SQLiteDatabase(path: storage.path, create: false).execute("VACUUM") }
        }
        // Zero a leaf page of the records' table in the middle of the file: its header is gone.
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let pages = try handle.seekToEnd() / 4_096
        try handle.seek(toOffset: pages / 2 * 4_096)
        handle.write(Data(count: 4_096))
        try handle.close()
        let report = try SQLiteJournalFile(directory: directory.path).storageReport()
        #expect(!report.integrityProblems.isEmpty)
        let error = try recoveryDamage(in: directory)
        #expect(error.message.contains(path), "\(error.message)")
    }

    @Test func aBackupIsAWholeCopyThatOpensAsAJournal() throws {
        let directory = try journal(records: 50, snapshots: [40])
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.append([record(51)])  // in the write-ahead log, not yet in the file
        let copy = try TemporaryDirectory(prefix: "remvvm-backup")
        try SQLiteJournalFile(directory: directory.path).backup(to: copy.path + "/" + SQLiteJournalStorage.fileName)
        let restored = try SQLiteJournalStorage(directory: copy.path, sync: .off)
        defer { restored.close() }
        #expect(try restored.recover() == storage.recover())
        #expect(try restored.records(after: 0, limit: 100) == storage.records(after: 0, limit: 100))
    }

    @Test(arguments: RecordTable.allCases)
    func aRepairKeepsTheLastGoodVersionDropsTheRestAndWritesItsSnapshot(table: RecordTable) throws {
        let directory = try journal(records: 30, snapshots: [10, 20], damage: "UPDATE actions SET time = 0 WHERE version = 26", in: table)
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.repair(JournalRepairPlan(lastGoodVersion: 25, snapshot: snapshot(25), removeRecordsThrough: nil))
        let recovery = try storage.recover()
        #expect(recovery.snapshot == snapshot(25) && recovery.lastVersion == 25 && recovery.earliestVersion == 1)
        #expect(try storage.storedSnapshots().map(\.version) == [20, 25])
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == Array(1...25))
        #expect(try storage.logRowCount() == 0, "the repair moved the log into actions")
    }
}
