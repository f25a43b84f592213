import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Format 4: commits append to the log of recent records (`commit_log`), folded into `actions` in
/// batches; every read sees both tables in version order (`docs/journal.md`, "The log of recent
/// records").
@Suite struct SQLiteCommitLogTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{\"by\":\(version)}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    /// Rows of `table` in the file at `path`, read through a connection of its own.
    private func rows(_ table: String, at path: String) throws -> Int {
        let count = try SQLiteDatabase(path: path, create: false).prepare("SELECT COUNT(*) FROM \(table)")
        _ = try count.step()
        return Int(count.int64(0))
    }

    @Test func recordsSplitBetweenTheTwoTablesReadInVersionOrderEverywhere() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let room = try storage.newStore("room-1")
        try storage.append((1...5).map(record))
        try room.append((1...2).map(record))
        try storage.foldLog()
        try storage.append((6...8).map(record))
        try room.append([record(3)])
        #expect(try rows("actions", at: storage.path) == 7 && rows("commit_log", at: storage.path) == 4)

        #expect(try storage.records(after: 0, limit: 100) == (1...8).map(record))
        #expect(try storage.records(after: 3, limit: 3).map(\.version) == [4, 5, 6], "a page across the two tables")
        #expect(try room.records(after: 1, limit: 10).map(\.version) == [2, 3])
        let recovery = try storage.recover()
        #expect(recovery.lastVersion == 8 && recovery.earliestVersion == 1)
        #expect(try room.recover().lastVersion == 3)
        let head = try #require(try storage.describe(.default))
        #expect(head.version == 8 && head.lastActionAt == record(8).time)
        #expect(try storage.list(prefix: "", after: nil, limit: 10).map(\.version) == [8, 3])
        #expect(try storage.newestVersion(recordedBefore: record(7).time) == 6)
        #expect(try storage.newestVersion(recordedBefore: record(3).time) == 2)
        let file = try SQLiteJournalFile(directory: directory.path)
        #expect(try file.records(after: 4, limit: 100) == (5...8).map(record), "what verify reads")
        #expect(try file.contents(of: StoreID("room-1")).records(after: 0, limit: 10).map(\.version) == [1, 2, 3])
    }

    @Test func theLogIsFoldedIntoActionsOnceItReachesTheThreshold() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full, foldThreshold: 4)
        defer { storage.close() }
        for version: UInt64 in 1...4 { try storage.append([record(version)]) }
        #expect(try rows("actions", at: storage.path) == 0 && rows("commit_log", at: storage.path) == 4)
        try storage.append([record(5)])
        #expect(try rows("actions", at: storage.path) == 4 && rows("commit_log", at: storage.path) == 1, "folded before the fifth commit")
        #expect(try storage.records(after: 0, limit: 100) == (1...5).map(record))
        #expect(try storage.writerSynchronousLevel() == 2, "the fold's own transaction ran without a sync, then FULL again")
    }

    @Test func aFoldThatIsRolledBackLosesNothingAndCommitsGoOn() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full, foldThreshold: 2)
        defer { storage.close() }
        try storage.append((1...3).map(record))
        // The fold's INSERT into actions runs, then its DELETE fails: the transaction rolls back.
        let other = try SQLiteDatabase(path: storage.path, create: false)
        try other.execute("CREATE TRIGGER interrupt BEFORE DELETE ON commit_log BEGIN SELECT RAISE(ABORT, 'interrupted'); END")
        #expect(throws: JournalError.self) { try storage.foldLog() }
        try storage.append([record(4)])  // its own fold fails first; the commit does not
        #expect(try rows("actions", at: storage.path) == 0 && rows("commit_log", at: storage.path) == 4)
        #expect(try storage.records(after: 0, limit: 100) == (1...4).map(record), "each record once")
        #expect(try storage.recover().lastVersion == 4)
        try other.execute("DROP TRIGGER interrupt")
        try storage.foldLog()
        #expect(try rows("actions", at: storage.path) == 4 && rows("commit_log", at: storage.path) == 0)
        #expect(try storage.records(after: 0, limit: 100) == (1...4).map(record))
    }

    @Test func aFoldThatMeetsAVersionAlreadyInActionsMovesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full, foldThreshold: 100)
        defer { storage.close() }
        try storage.append((1...3).map(record))
        // Version 3 in both tables: the fold's insert (`OR FAIL`, no statement journal) has
        // moved versions 1 and 2 when it meets it; the fold's transaction must take them back.
        let other = try SQLiteDatabase(path: storage.path, create: false)
        try other.execute("INSERT INTO actions SELECT store, version, type, payload, time, checksum FROM commit_log WHERE version = 3")
        #expect(throws: JournalError.self) { try storage.foldLog() }
        #expect(try rows("actions", at: storage.path) == 1 && rows("commit_log", at: storage.path) == 3)
        try other.execute("DELETE FROM actions")
        try storage.foldLog()
        #expect(try rows("actions", at: storage.path) == 3 && rows("commit_log", at: storage.path) == 0)
        #expect(try storage.records(after: 0, limit: 100) == (1...3).map(record))
    }

    @Test func aVersionWrittenTwiceIsRefusedWhicheverTableHoldsIt() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let room = try storage.newStore("room-1")
        let second = try #require(try storage.storage(for: StoreID("room-1")), "two views of one store")
        try room.append((1...3).map(record))
        let error = try #require(throws: JournalError.self) { try second.append([record(3)]) }
        #expect(error.message.contains("version 3 of store room-1 does not follow version 3"), "\(error.message)")
        try storage.foldLog()
        #expect(throws: JournalError.self) { try second.append([record(2), record(4)]) }
        try second.append([record(4)])
        #expect(try room.records(after: 0, limit: 10).map(\.version) == [1, 2, 3, 4])
    }

    @Test func retentionRemovesFromBothTablesAndTheHeadOutlivesThem() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.append((1...3).map(record))
        try storage.foldLog()
        try storage.append((4...10).map(record))
        try storage.saveSnapshot(snapshot(5))
        try storage.saveSnapshot(snapshot(8))
        try storage.removeRecords(through: 8)
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == Array(6...10), "never past the older snapshot, 5")
        #expect(try rows("actions", at: storage.path) == 0 && rows("commit_log", at: storage.path) == 5)
        try storage.saveSnapshot(snapshot(10))
        try storage.removeRecords(through: 10)
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == [9, 10])
        let room = try storage.newStore("room-1")
        try room.append((1...3).map(record))
        try room.saveSnapshot(snapshot(2))
        try room.removeRecords(through: 3)
        #expect(try room.records(after: 0, limit: 10).map(\.version) == [1, 2, 3], "one snapshot: nothing removed")
        try room.saveSnapshot(snapshot(3))
        try room.removeRecords(through: 3)
        #expect(try room.records(after: 0, limit: 10).map(\.version) == [3], "never past the older snapshot, 2")
        let head = try #require(try storage.describe(StoreID("room-1")))
        #expect(head.version == 3 && head.lastActionAt == record(3).time)
    }

    @Test func aRepairOfRecordsSplitBetweenTheTablesKeepsTheLastGoodVersion() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.append((1...20).map(record))
        try storage.saveSnapshot(snapshot(10))
        try storage.foldLog()
        try storage.append((21...30).map(record))
        try storage.repair(JournalRepairPlan(lastGoodVersion: 25, snapshot: snapshot(25), removeRecordsThrough: nil))
        #expect(try storage.records(after: 0, limit: 100) == (1...25).map(record))
        #expect(try storage.recover().lastVersion == 25)
        try storage.append([record(26)])
        #expect(try storage.records(after: 24, limit: 100).map(\.version) == [25, 26])
    }

    @Test func recordsLeftInTheLogByACrashAreReadAfterTheRestart() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            let room = try storage.newStore("room-1")
            try room.append((1...3).map(record))
            try storage.foldLog()
            try room.append((4...6).map(record))
            RecordTable.log.close(storage)
        }
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let room = try #require(try storage.storage(for: StoreID("room-1")))
        #expect(try room.records(after: 2, limit: 10).map(\.version) == [3, 4, 5, 6], "the reopened file knows the log holds room-1's records")
        #expect(try room.recover().lastVersion == 6)
        #expect(try storage.describe(StoreID("room-1"))?.version == 6)
        // What the writer keeps of the log (the newest record, the oldest version) is rebuilt too.
        try room.saveSnapshot(snapshot(5))
        try room.saveSnapshot(snapshot(6))
        try room.removeRecords(through: 6)
        #expect(try room.records(after: 0, limit: 10).map(\.version) == [6] && rows("commit_log", at: storage.path) == 1)
        let head = try #require(try storage.describe(StoreID("room-1")))
        #expect(head.version == 6 && head.lastActionAt == record(6).time)
    }

    @Test func aDeletedStoreLeavesNoRecordInTheLog() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-log")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let room = try storage.newStore("room-1")
        try room.append((1...3).map(record))
        try storage.append((1...2).map(record))
        #expect(try storage.delete(StoreID("room-1")))
        #expect(try rows("commit_log", at: storage.path) == 2)
        let again = try storage.newStore("room-1")
        #expect(try again.recover().lastVersion == 0 && again.records(after: 0, limit: 10).isEmpty)
    }

    @Test func aFormatThreeFileOpensWithEveryRecordAndBecomesTheCurrentFormat() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-format3")
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        let room = try StoreID("room-1")
        do {
            let database = try EarlierJournalFormat.create(format: 3, at: path)
            try database.execute("""
                INSERT INTO stores(key, id, incarnation, created_at) VALUES (1, 'default', '00000000000000a1', 1), (2, 'room-1', '00000000000000a2', 1);
                INSERT INTO snapshots VALUES (1, 2, CAST('{"counter":2}' AS BLOB), 1, \(snapshot(2).checksum));
                """)
            let insert = try database.prepare("INSERT INTO actions VALUES (?1, ?2, 'increase', ?3, ?4, ?5)")
            for (key, store, versions) in [(Int64(1), StoreID.default, 1...5), (2, room, 1...3)] as [(Int64, StoreID, ClosedRange<UInt64>)] {
                for version in versions {
                    insert.reset()
                    try insert.bind(1, key)
                    try insert.bind(2, Int64(version))
                    try insert.bind(3, record(version).payload)
                    try insert.bind(4, record(version).time)
                    try insert.bind(5, Int64(record(version).checksum(in: store)))
                    try insert.run()
                }
            }
        }
        let old = try SQLiteJournalFile(directory: directory.path)
        #expect(old.format == 3, "verify reads it as it is")
        #expect(try old.contents(of: room).records(after: 0, limit: 10).map(\.version) == [1, 2, 3])
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            defer { storage.close() }
            #expect(try storage.recover().lastVersion == 5)
            #expect(try storage.recover().snapshot == snapshot(2))
            #expect(try storage.records(after: 0, limit: 10) == (1...5).map(record), "every record, intact")
            let view = try #require(try storage.storage(for: room))
            #expect(try view.records(after: 0, limit: 10) == (1...3).map(record))
            try view.append([record(4)])
            #expect(try rows("commit_log", at: path) == 1)
            #expect(try storage.describe(room)?.version == 4)
        }
        let upgraded = try SQLiteJournalFile(directory: directory.path)
        #expect(upgraded.format == SQLiteJournalStorage.format)
        #expect(try upgraded.contents(of: room).records(after: 0, limit: 10).map(\.version) == [1, 2, 3, 4])
    }
}
