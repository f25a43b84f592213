import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Format 5: a fold of the log of recent records moves in pieces, one before each commit, and
/// every read sees each record once while the log still holds the rows a piece copied
/// (`docs/journal.md`, "The log of recent records").
@Suite struct SQLiteFoldPiecesTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{\"by\":\(version)}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    /// Rows of `table` in the file at `path`, read through a connection of its own.
    private func rows(_ table: String, at path: String) throws -> Int {
        try count("SELECT COUNT(*) FROM \(table)", at: path)
    }

    /// The first column of `query`'s first row, an integer, in the file at `path`.
    private func count(_ query: String, at path: String) throws -> Int {
        let select = try SQLiteDatabase(path: path, create: false).prepare(query)
        _ = try select.step()
        return Int(select.int64(0))
    }

    /// The fold's recorded progress: the last store key and version copied; nil when none.
    private func progress(at path: String) throws -> (store: Int64, version: Int64)? {
        let select = try SQLiteDatabase(path: path, create: false).prepare("SELECT store, version FROM fold_progress")
        guard try select.step() else { return nil }
        return (select.int64(0), select.int64(1))
    }

    /// A file with the stores default, room-1 and room-2, versions 1...3 of each in the log, and a
    /// fold due at the next commit (threshold 8, pieces of 3: one store's records a piece).
    private func threeStores(in directory: TemporaryDirectory) throws -> (SQLiteJournalStorage, [any JournalStorage]) {
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off, foldThreshold: 8, foldPiece: 3, foldPiecesFromStores: 1)
        #expect(!storage.finishedAnInterruptedFold)
        let stores: [any JournalStorage] = [storage, try storage.newStore("room-1"), try storage.newStore("room-2")]
        for store in stores { try store.append((1...3).map(record)) }
        return (storage, stores)
    }

    /// Each store's records read through the file, its recovery, and a read-only file of it.
    private func expectEachRecordOnce(_ storage: SQLiteJournalStorage, _ stores: [any JournalStorage], through newest: [UInt64], _ comment: Comment) throws {
        let file = try SQLiteJournalFile(directory: storage.directory)
        for (store, last) in zip(stores, newest) {
            #expect(try store.records(after: 0, limit: 100) == (1...last).map(record), comment)
            #expect(try store.records(after: 2, limit: 1) == [record(3)], comment)
            #expect(try store.recover().lastVersion == last, comment)
        }
        #expect(try file.records(after: 0, limit: 100) == (1...newest[0]).map(record), "verify's read-only file: \(comment)")
        #expect(try file.contents(of: StoreID("room-1")).records(after: 0, limit: 100).map(\.version) == Array(1...newest[1]), comment)
    }

    /// Appends the next version of each store in turn (from the first store at every call),
    /// `count` commits, after `newest`; returns the rows of `actions` after each.
    private func commit(_ count: Int, to stores: [any JournalStorage], newest: inout [UInt64], path: String) throws -> [Int] {
        var moved: [Int] = []
        for index in 0..<count {
            let store = index % stores.count
            newest[store] += 1
            try stores[store].append([record(newest[store])])
            moved.append(try rows("actions", at: path))
        }
        return moved
    }

    @Test func aFoldMovesInPiecesBeforeEveryOtherCommitAndEveryReadSeesEachRecordOnce() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let (storage, stores) = try threeStores(in: directory)
        defer { storage.close() }
        let path = storage.path
        var newest: [UInt64] = [3, 3, 3]
        #expect(try rows("actions", at: path) == 0 && rows("commit_log", at: path) == 9)
        // The fold is due: default's 1...3 copied (not yet deleted from the log).
        #expect(try commit(1, to: stores, newest: &newest, path: path) == [3])
        #expect(try rows("commit_log", at: path) == 10 && progress(at: path)?.version == 3)
        try expectEachRecordOnce(storage, stores, through: newest, "after the first piece")
        // A commit without a piece, then room-1's 1...3.
        #expect(try commit(2, to: stores, newest: &newest, path: path) == [3, 6])
        try expectEachRecordOnce(storage, stores, through: newest, "after the second piece")
        // Then room-2's 1...3, and the fold's rows leave the log.
        #expect(try commit(2, to: stores, newest: &newest, path: path) == [6, 9])
        #expect(try rows("commit_log", at: path) == 5 && progress(at: path) == nil)
        try expectEachRecordOnce(storage, stores, through: newest, "after the last piece")
        // What the writer knows of the log afterwards: the newer versions are still found there,
        // and a version written twice is still refused.
        // (The commits went to default and room-1 only: room-2 has no record left in the log.)
        let state = storage.log.withLock { ($0.rows, $0.folding == nil, $0.stores.count, $0.oldest.values.sorted()) }
        #expect(state == (5, true, 2, [4, 4]))
        #expect(throws: JournalError.self) { try stores[1].append([record(newest[1])]) }
        try storage.foldLog()
        #expect(try rows("actions", at: path) == 14 && rows("commit_log", at: path) == 0)
        try expectEachRecordOnce(storage, stores, through: newest, "after a whole fold")
    }

    @Test func aFoldOfOneStoreMovesInPiecesOfItsVersions() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off, foldThreshold: 8, foldPiece: 3, foldPiecesFromStores: 1)
        defer { storage.close() }
        try storage.append((1...9).map(record))
        var newest: [UInt64] = [9]
        #expect(try commit(7, to: [storage], newest: &newest, path: storage.path) == [3, 3, 6, 6, 9, 9, 9])
        #expect(try rows("commit_log", at: storage.path) == 7)
        #expect(try storage.records(after: 0, limit: 100) == (1...16).map(record))
    }

    @Test func aCrashInTheMiddleOfAFoldIsFinishedAtTheNextStart() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        do {
            let (storage, stores) = try threeStores(in: directory)
            var newest: [UInt64] = [3, 3, 3]
            #expect(try commit(1, to: stores, newest: &newest, path: storage.path) == [3])
            RecordTable.log.close(storage)  // as a crash leaves it: the log and the progress row
        }
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        #expect(try rows("actions", at: path) == 3 && rows("commit_log", at: path) == 10 && progress(at: path) != nil)
        let file = try SQLiteJournalFile(directory: directory.path)
        #expect(try file.records(after: 0, limit: 100) == (1...4).map(record), "verify reads the file as the crash left it")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off, foldThreshold: 8, foldPiece: 3, foldPiecesFromStores: 1)
        defer { storage.close() }
        #expect(storage.finishedAnInterruptedFold)
        #expect(try rows("actions", at: path) == 10 && rows("commit_log", at: path) == 0 && progress(at: path) == nil)
        let stores: [any JournalStorage] = [storage, try #require(try storage.storage(for: StoreID("room-1"))), try #require(try storage.storage(for: StoreID("room-2")))]
        try expectEachRecordOnce(storage, stores, through: [4, 3, 3], "after the start")
        try stores[1].append([record(4)])
        #expect(try storage.describe(StoreID("room-1"))?.version == 4)
    }

    @Test func aWholeFoldDuringAFoldInPiecesMovesEachRecordOnce() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let (storage, stores) = try threeStores(in: directory)
        defer { storage.close() }
        var newest: [UInt64] = [3, 3, 3]
        #expect(try commit(1, to: stores, newest: &newest, path: storage.path) == [3])
        try storage.foldLog()  // as a clean close and a repair do
        #expect(try rows("actions", at: storage.path) == 10 && rows("commit_log", at: storage.path) == 0)
        #expect(try progress(at: storage.path) == nil && storage.log.withLock { $0.folding == nil })
        try expectEachRecordOnce(storage, stores, through: newest, "after the whole fold")
        #expect(try commit(2, to: stores, newest: &newest, path: storage.path) == [10, 10], "no piece left to move")
    }

    @Test func retentionAndADeletionDuringAFoldAreNotUndoneByItsPieces() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let (storage, stores) = try threeStores(in: directory)
        defer { storage.close() }
        var newest: [UInt64] = [3, 3, 3]
        #expect(try commit(1, to: stores, newest: &newest, path: storage.path) == [3], "the first piece")
        // Two snapshots: retention removes nothing while a store has one.
        for version: UInt64 in [2, 3] { try stores[1].saveSnapshot(JournalSnapshot(version: version, state: Array("{}".utf8), time: 1)) }
        try stores[1].removeRecords(through: 2)
        #expect(try storage.delete(StoreID("room-2")))
        for _ in 0..<6 { try storage.append([record(newest[0] + 1)]); newest[0] += 1 }
        #expect(try progress(at: storage.path) == nil && storage.log.withLock { $0.folding == nil })
        #expect(try stores[1].records(after: 0, limit: 10).map(\.version) == [3], "versions 1 and 2 not brought back")
        #expect(try count("SELECT COUNT(*) FROM actions a JOIN stores s ON s.key = a.store WHERE s.id = 'room-1'", at: storage.path) == 1)
        #expect(try count("SELECT COUNT(*) FROM actions WHERE store NOT IN (SELECT key FROM stores)", at: storage.path) == 0, "the deleted store's records not brought back")
        #expect(try storage.records(after: 0, limit: 100) == (1...newest[0]).map(record))
    }

    @Test func aPieceThatFailsIsTriedAgainFromWhereTheFoldStood() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let (storage, stores) = try threeStores(in: directory)
        defer { storage.close() }
        var newest: [UInt64] = [3, 3, 3]
        #expect(try commit(1, to: stores, newest: &newest, path: storage.path) == [3])
        let other = try SQLiteDatabase(path: storage.path, create: false)
        try other.execute("CREATE TRIGGER interrupt BEFORE INSERT ON fold_progress BEGIN SELECT RAISE(ABORT, 'interrupted'); END")
        // The next piece fails and is taken back; the commits do not.
        #expect(try commit(2, to: stores, newest: &newest, path: storage.path) == [3, 3])
        #expect(try progress(at: storage.path)?.version == 3)
        try expectEachRecordOnce(storage, stores, through: newest, "after a failed piece")
        try other.execute("DROP TRIGGER interrupt")
        let moved = try commit(10, to: stores, newest: &newest, path: storage.path)
        #expect(moved.prefix(7).allSatisfy { $0 == 3 }, "not before another threshold's records: \(moved)")
        #expect(moved.last == 9, "tried again from where it stood, to the end: \(moved)")
        #expect(try progress(at: storage.path) == nil && storage.log.withLock { $0.folding == nil })
        try expectEachRecordOnce(storage, stores, through: newest, "after the fold")
    }

    @Test func aLogOfFewerStoresThanTheBoundIsFoldedWhole() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off, foldThreshold: 8, foldPiece: 3, foldPiecesFromStores: 4)
        defer { storage.close() }
        let stores: [any JournalStorage] = [storage, try storage.newStore("room-1"), try storage.newStore("room-2")]
        for store in stores { try store.append((1...3).map(record)) }
        var newest: [UInt64] = [3, 3, 3]
        #expect(try commit(2, to: stores, newest: &newest, path: storage.path) == [9, 9])
        #expect(try rows("commit_log", at: storage.path) == 2 && progress(at: storage.path) == nil)
    }

    @Test func aFormatFourFileOpensAndBecomesFormatFive() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-pieces")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            try storage.append((1...3).map(record))
            RecordTable.log.close(storage)
        }
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        try SQLiteDatabase(path: path, create: false).execute("DROP TABLE fold_progress; UPDATE meta SET value = '4' WHERE key = 'format'")
        let old = try SQLiteJournalFile(directory: directory.path)
        #expect(old.format == 4)
        #expect(try old.records(after: 0, limit: 10) == (1...3).map(record), "verify reads it as it is")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        #expect(try storage.records(after: 0, limit: 10) == (1...3).map(record))
        #expect(try SQLiteJournalFile(directory: directory.path).format == 5 && progress(at: path) == nil)
    }
}
