import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// What ``SQLiteJournalStorage`` refuses instead of starting over data: a data directory of the
/// other role, a snapshot past the records, versions that are not versions, a write-ahead log
/// without its file (a damaged log: `SQLiteWriteAheadLogCheckTests`). Each refusal names the
/// file and says what to do.
@Suite struct SQLiteJournalDamageTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: [], time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    /// A closed journal holding records 1...`records` (and a snapshot of `snapshotVersion`), then
    /// changed behind its back by `damage`: what a broken disk or a hand-made edit leaves.
    private func damagedJournal(records: UInt64, snapshotVersion: UInt64? = nil, in table: RecordTable = .actions, _ damage: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        try storage.append((1...records).map { record($0) })
        if let snapshotVersion { try storage.saveSnapshot(snapshot(snapshotVersion)) }
        table.close(storage)
        try SQLiteDatabase(path: storage.path, create: false).execute(table.aim(damage))
        return directory
    }

    @Test func aDataDirectoryKeepsTheRoleThatFirstUsedIt() throws {
        let replica = try TemporaryDirectory(prefix: "remvvm-journal-replica")
        do {
            let storage = try SQLiteJournalStorage(directory: replica.path, sync: .full)
            #expect(try storage.claim(for: .replica) == false, "a new file: nothing to warn about")
            try storage.saveSnapshot(snapshot(5))
            storage.close()
        }
        do {
            let storage = try SQLiteJournalStorage(directory: replica.path, sync: .full)
            defer { storage.close() }
            try storage.claim(for: .replica)  // the same role again
            let error = try #require(throws: JournalError.self) { try storage.claim(for: .singleNode) }
            #expect(error.code == .unusable)
            #expect(error.message.contains(replica.path) && error.message.contains("replica of a shared PostgreSQL log"), "\(error.message)")
            #expect(error.message.contains("another data directory"))
        }

        let single = try TemporaryDirectory(prefix: "remvvm-journal-single")
        let storage = try SQLiteJournalStorage(directory: single.path, sync: .full)
        defer { storage.close() }
        try storage.claim(for: .singleNode)
        let error = try #require(throws: JournalError.self) { try storage.claim(for: .replica) }
        #expect(error.code == .unusable)
        #expect(error.message.contains(single.path) && error.message.contains("a replica must not start from it"), "\(error.message)")
    }

    /// A file of an earlier build holding snapshots and no records may be a replica's or a
    /// single node's whose retention removed every record: the first claim takes it and says so
    /// (the runtimes log a warning); with records, or empty, there is nothing to say.
    @Test func anEarlierBuildsFileWithSnapshotsOnlyIsTakenAndSaysSo() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            try storage.saveSnapshot(snapshot(9))  // no claim: as an earlier build left it
            storage.close()
        }
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            defer { storage.close() }
            #expect(try storage.claim(for: .singleNode) == true)
            #expect(try storage.claim(for: .singleNode) == false, "recorded now")
            #expect(throws: JournalError.self) { try storage.claim(for: .replica) }
        }
        let withRecords = try damagedJournal(records: 3, snapshotVersion: 3, "DELETE FROM meta WHERE key = 'role'")
        let storage = try SQLiteJournalStorage(directory: withRecords.path, sync: .full)
        defer { storage.close() }
        #expect(try storage.claim(for: .singleNode) == false, "records say whose it is")
    }

    @Test func aRoleOfAnotherBuildIsRefusedNamingIt() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { storage.close() }
        let database = try SQLiteDatabase(path: storage.path, create: false)
        try database.execute("INSERT INTO meta(key, value) VALUES ('role', 'archive')")
        let error = try #require(throws: JournalError.self) { try storage.claim(for: .singleNode) }
        #expect(error.code == .unusable)
        #expect(error.message.contains("\"archive\""), "\(error.message)")
    }

    @Test(arguments: RecordTable.allCases)
    func aSnapshotPastTheLastRecordIsDamageNamingTheMissingVersions(table: RecordTable) throws {
        let directory = try damagedJournal(records: 7, snapshotVersion: 7, in: table, "DELETE FROM actions WHERE version > 5")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { storage.close() }
        let error = try #require(throws: JournalError.self) { try storage.recover() }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("journal.sqlite") && error.message.contains("versions 6...7 are missing"), "\(error.message)")
        #expect(error.message.contains("restore the data directory from a backup"))
        // What retention leaves is not damage: every record up to the snapshot removed.
        try SQLiteDatabase(path: storage.path, create: false).execute(table.aim("DELETE FROM actions"))
        #expect(try storage.recover().lastVersion == 7)
    }

    @Test(arguments: RecordTable.allCases)
    func aVersionThatIsNotOneIsDamageNotACrash(table: RecordTable) throws {
        let directory = try damagedJournal(records: 3, in: table, "UPDATE actions SET version = -3 WHERE version = 1")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { storage.close() }
        let error = try #require(throws: JournalError.self) { try storage.recover() }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("version -3 is not a version"), "\(error.message)")
        try SQLiteDatabase(path: storage.path, create: false).execute("INSERT INTO snapshots(store, version, state, time, checksum) VALUES (1, -1, '{}', 0, 0)")
        #expect(throws: JournalError.self) { try storage.snapshot(atOrBefore: 10) }
    }

    /// A directory holding copies of the files `suffixes` name (`""` the journal, `"-wal"` its
    /// log) of a journal of versions 1 and 2 that is still open: as `kill -9` leaves them, the
    /// log still holding the commits.
    private func crashedCopy(of suffixes: [String]) throws -> TemporaryDirectory {
        let live = try TemporaryDirectory(prefix: "remvvm-journal")
        let crashed = try TemporaryDirectory(prefix: "remvvm-journal-crashed")
        let storage = try SQLiteJournalStorage(directory: live.path, sync: .full)
        defer { storage.close() }
        try storage.append([record(1), record(2)])
        for suffix in suffixes {
            try FileManager.default.copyItem(atPath: storage.path + suffix, toPath: crashed.path + "/journal.sqlite" + suffix)
        }
        return crashed
    }

    @Test func aWriteAheadLogWithoutItsFileIsRefusedNotStartedEmpty() throws {
        // The main file lost: a copy that took only the log, or a file deleted by hand.
        let crashed = try crashedCopy(of: ["-wal"])
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains(crashed.path + "/journal.sqlite is missing"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: crashed.path + "/journal.sqlite"), "no empty file was created")
        // The directory is not left locked.
        try FileManager.default.removeItem(atPath: crashed.path + "/journal.sqlite-wal")
        let empty = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
        empty.close()
    }

    /// An empty main file beside the log is no new database: SQLite took it for one, dropped
    /// the log's commits and deleted the log (from a review: 50 acknowledged versions gone).
    @Test func anEmptyJournalBesideItsWriteAheadLogIsRefusedAndTheLogKept() throws {
        let crashed = try crashedCopy(of: ["", "-wal"])
        #expect(truncate(crashed.path + "/journal.sqlite", 0) == 0)
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
        }
        #expect(error.code == .corrupt)
        #expect(error.message.contains(crashed.path + "/journal.sqlite is empty but its write-ahead log"), "\(error.message)")
        let log = try FileManager.default.attributesOfItem(atPath: crashed.path + "/journal.sqlite-wal")
        #expect((log[.size] as? Int ?? 0) > 0, "the log that holds the commits is kept")
    }

    /// A directory that held a journal (its lock file is there) whose journal file is gone: a new
    /// journal starts, and the recovery says so for the server's warning.
    @Test func aJournalMissingFromADirectoryUsedBeforeIsReported() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        do {
            let fresh = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            #expect(try fresh.recover().journalWasMissing == false, "a new directory")
            try fresh.append([record(1)])
            fresh.close()
        }
        try FileManager.default.removeItem(atPath: directory.path + "/journal.sqlite")
        let again = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { again.close() }
        let recovery = try again.recover()
        #expect(recovery.journalWasMissing && recovery.lastVersion == 0)
    }

    /// Deleting `journal.lock` while a server holds it let a second one open the same journal.
    @Test func deletingTheLockFileDoesNotLetASecondServerIn() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let first = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { first.close() }
        try FileManager.default.removeItem(atPath: directory.path + "/journal.lock")
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        }
        #expect(error.code == .locked)
        #expect(error.message.contains("is in use by another server process"), "\(error.message)")
    }

    /// A journal deleted or moved under the server took further commits into a file nobody
    /// opens again: acknowledged, then lost. Commits now fail, saying why.
    @Test(arguments: [true, false])
    func aJournalDeletedOrMovedWhileOpenRefusesCommits(deleted: Bool) throws {
        let root = try TemporaryDirectory(prefix: "remvvm-journal")
        let directory = root.path + "/data"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let storage = try SQLiteJournalStorage(directory: directory, sync: .full)
        defer { storage.close() }
        try storage.append([record(1)])
        if deleted {
            try FileManager.default.removeItem(atPath: directory)
        } else {
            try FileManager.default.moveItem(atPath: directory, toPath: root.path + "/moved")
        }
        let error = try #require(throws: JournalError.self) { try storage.append([record(2)]) }
        #expect(error.code == .writeFailed)
        #expect(error.message.contains("deleted, renamed or replaced while the server ran"), "\(error.message)")
    }
}
