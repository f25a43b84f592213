import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// ``SQLiteJournalStorage``: one file per store, a lock per data directory, refusals that name
/// the file and the version.
@Suite struct SQLiteJournalStorageTests {
    private func record(_ version: UInt64, type: String = "increase", payload: String = "") -> JournalRecord {
        JournalRecord(version: version, type: type, payload: Array(payload.utf8), time: 1_700_000_000_000 + Int64(version))
    }

    @Test func recordsSurviveClosingAndReopening() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            #expect(try storage.recover() == JournalRecovery(snapshot: nil, lastVersion: 0, earliestVersion: nil))
            try storage.append([record(1), record(2, type: "login", payload: #"{"firstName":"Ada"}"#)])
            try storage.append([record(3)])
            storage.close()
        }
        let reopened = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { reopened.close() }
        #expect(try reopened.recover() == JournalRecovery(snapshot: nil, lastVersion: 3, earliestVersion: 1))
        let records = try reopened.records(after: 0, limit: 10)
        #expect(records == [record(1), record(2, type: "login", payload: #"{"firstName":"Ada"}"#), record(3)])
        #expect(try reopened.records(after: 1, limit: 1) == [record(2, type: "login", payload: #"{"firstName":"Ada"}"#)])
        #expect(FileManager.default.fileExists(atPath: directory.path + "/journal.sqlite"))
    }

    @Test func aSecondOpenOfTheSameDirectoryIsRefusedUntilTheFirstCloses() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let first = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        }
        #expect(error.code == .locked)
        #expect(error.message.contains(directory.path))
        first.close()
        let second = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        second.close()
    }

    @Test func aJournalFromANewerFormatIsRefusedNamingTheFile() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            storage.close()
        }
        let database = try SQLiteDatabase(path: directory.path + "/journal.sqlite", create: false)
        try database.execute("UPDATE meta SET value = '99' WHERE key = 'format'")
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        }
        #expect(error.code == .newerFormat)
        #expect(error.message.contains("journal.sqlite") && error.message.contains("format 99"))
    }

    @Test(arguments: RecordTable.allCases)
    func aMissingRecordInTheMiddleIsCorruptionNamingTheVersion(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        try storage.append((1...10).map { record($0) })
        table.close(storage)
        let database = try SQLiteDatabase(path: directory.path + "/journal.sqlite", create: false)
        try database.execute(table.aim("DELETE FROM actions WHERE version = 6"))
        let error = try recoveryDamage(in: directory, sync: .full)
        #expect(error.message.contains("missing after 5"), "\(error.message)")
    }

    @Test func snapshotsKeepTheNewestTwoAndRetentionNeverPassesTheOlderOfThem() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .normal)
        defer { storage.close() }
        try storage.append((1...30).map { record($0) })
        for version: UInt64 in [10, 20, 25] {
            try storage.saveSnapshot(JournalSnapshot(version: version, state: Array("{\"v\":\(version)}".utf8), time: 1))
        }
        try storage.removeRecords(through: 28)
        let recovery = try storage.recover()
        #expect(recovery.snapshot?.version == 25)
        #expect(recovery.earliestVersion == 21, "records up to the older kept snapshot were removed, not past it")
        #expect(recovery.lastVersion == 30)
        let database = try SQLiteDatabase(path: directory.path + "/journal.sqlite", create: false, readOnly: true)
        let count = try database.prepare("SELECT COUNT(*) FROM snapshots")
        _ = try count.step()
        #expect(count.int64(0) == 2)
    }

    @Test func aDataDirectoryThatDoesNotExistIsUnusableNamingThePath() throws {
        let missing = "/nonexistent-remvvm-\(UUID().uuidString)"
        let error = try #require(throws: JournalError.self) {
            _ = try SQLiteJournalStorage(directory: missing, sync: .full)
        }
        #expect(error.code == .unusable)
        #expect(error.message.contains(missing))
    }

    @Test func aJournalClosedCleanlyIsNotReportedAsAnUncleanStop() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let first = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        try first.append([record(1), record(2)])
        #expect(try first.recover().previousStopWasUnclean == false, "a new journal")
        first.close()
        #expect(!FileManager.default.fileExists(atPath: first.path + "-wal"), "closing folds the log into the file")
        let second = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { second.close() }
        let recovery = try second.recover()
        #expect(recovery.lastVersion == 2)
        #expect(recovery.previousStopWasUnclean == false)
    }

    @Test func aJournalLeftByACrashIsReportedAndATornLastCommitIsDiscarded() throws {
        let live = try TemporaryDirectory(prefix: "remvvm-journal")
        let crashed = try TemporaryDirectory(prefix: "remvvm-journal-crashed")
        let storage = try SQLiteJournalStorage(directory: live.path, sync: .full)
        defer { storage.close() }
        try storage.append([record(1)])
        try storage.append([record(2)])
        try storage.append([record(3, payload: String(repeating: "x", count: 3_000))])
        // The files as `kill -9` leaves them (the process still has them open), except that the
        // last commit's last frame is cut short, as a crash in the middle of its write leaves it.
        let wal = try Data(contentsOf: URL(fileURLWithPath: storage.path + "-wal"))
        try FileManager.default.copyItem(atPath: storage.path, toPath: crashed.path + "/" + SQLiteJournalStorage.fileName)
        try wal.prefix(wal.count - 100).write(to: URL(fileURLWithPath: crashed.path + "/" + SQLiteJournalStorage.fileName + "-wal"))

        let reopened = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
        defer { reopened.close() }
        let recovery = try reopened.recover()
        #expect(recovery.previousStopWasUnclean)
        #expect(recovery.lastVersion == 2, "the torn commit is discarded, the complete ones kept")
        #expect(try reopened.records(after: 0, limit: 10).map(\.version) == [1, 2])
        try reopened.append([record(3)])
        #expect(try reopened.recover().lastVersion == 3, "versions continue")
    }

    @Test func aTransactionCutShortLeavesThePreviousCommitWhole() throws {
        // A duplicate version makes the second statement of the batch fail: nothing of it stays.
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { storage.close() }
        try storage.append([record(1), record(2)])
        #expect(throws: JournalError.self) { try storage.append([record(3), record(2)]) }
        #expect(try storage.records(after: 0, limit: 10).map(\.version) == [1, 2])
        try storage.append([record(3)])
        #expect(try storage.recover().lastVersion == 3)
    }
}
