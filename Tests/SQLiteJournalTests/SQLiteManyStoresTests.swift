import ConcurrencyKit
import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Many stores in one file (format 3): each store's versions, answers, snapshots and retention are
/// its own, and the `stores` catalog (`docs/journal.md`, "Many stores").
@Suite struct SQLiteManyStoresTests {
    private func record(_ version: UInt64, _ type: String = "increase") -> JournalRecord {
        JournalRecord(version: version, type: type, payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    private func snapshot(_ version: UInt64) -> JournalSnapshot {
        JournalSnapshot(version: version, state: Array("{\"counter\":\(version)}".utf8), time: 1)
    }

    private func answer(_ key: String, time: Int64) -> KeptAnswer {
        KeptAnswer(key: key, fingerprint: Array(key.utf8), status: 200, body: Array("{}".utf8), time: time)
    }

    private func id(_ text: String) throws -> StoreID {
        try StoreID(text)
    }

    /// A created store's view.
    private func store(_ text: String, in database: SQLiteJournalStorage) throws -> SQLiteStoreJournal {
        let id = try id(text)
        _ = try database.create(id, limit: 1_000, at: 1_000)
        return try #require(try database.storage(for: id))
    }

    @Test func eachStoreHasItsOwnVersionsAnswersAndSnapshots() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            defer { database.close() }
            let room = try store("room-1", in: database)
            try database.append([record(1), record(2)], answers: [answer("k", time: 10)])
            try room.append([record(1, "join"), record(2, "join"), record(3, "join")], answers: [answer("k", time: 20)])
            try room.saveSnapshot(snapshot(2))
            #expect(try database.records(after: 0, limit: 10).map(\.type) == ["increase", "increase"])
            #expect(try room.records(after: 1, limit: 10).map(\.version) == [2, 3])
            #expect(try database.answer(forKey: "k")?.time == 10 && room.answer(forKey: "k")?.time == 20)
            #expect(try database.snapshot(atOrBefore: 10) == nil && room.snapshot(atOrBefore: 10) == snapshot(2))
        }
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let room = try #require(try database.storage(for: id("room-1")))
        #expect(try database.recover().lastVersion == 2)
        let recovery = try room.recover()
        #expect(recovery.lastVersion == 3 && recovery.snapshot == snapshot(2))
        #expect(try database.describe(id("room-1"))?.version == 3)
        #expect(try database.describe(.default)?.lastActionAt == 1_700_000_000_002)
    }

    @Test func retentionAndExpiryTouchOneStoreOnly() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let other = try store("other", in: database)
        for storage in [database as any JournalStorage, other] {
            try storage.append((1...10).map { record($0) }, answers: [answer("old", time: 1)])
            try storage.saveSnapshot(snapshot(8))
            try storage.saveSnapshot(snapshot(10))
        }
        try database.removeRecords(through: 8)
        try database.removeAnswers(keptBefore: 5)
        #expect(try database.recover().earliestVersion == 9)
        #expect(try database.answer(forKey: "old") == nil)
        #expect(try other.recover().earliestVersion == 1, "the other store keeps every record")
        #expect(try other.answer(forKey: "old") != nil)
    }

    @Test(arguments: RecordTable.allCases)
    func aRecordOfAnotherStoreDoesNotMatchItsChecksum(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let path: String
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            path = database.path
            let room = try store("room-1", in: database)
            try room.append([record(1)])
            table.close(database)
        }
        #expect(record(1).checksum(in: try id("room-1")) != record(1).checksum, "the store's id is covered")
        // The row moved to the default store (key 1) by hand: its checksum is room-1's.
        try SQLiteDatabase(path: path, create: false).execute(table.aim("UPDATE actions SET store = 1"))
        let error = try recoveryDamage(in: directory)
        #expect(error.message.contains("version 1 of store default does not match its checksum"), "\(error.message)")
    }

    @Test func aDeletedStoreLosesItsRowsAndItsViewsCannotWriteIntoItsSuccessor() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let keep = try store("keep", in: database)
        let gone = try store("gone", in: database)
        let first = try #require(try database.describe(id("gone")))
        for storage in [keep, gone] {
            try storage.append([record(1), record(2)], answers: [answer("k", time: 1)])
            try storage.saveSnapshot(snapshot(2))
        }
        #expect(try database.delete(id("gone")))
        #expect(try database.delete(id("gone")) == false, "already gone")
        #expect(try database.describe(id("gone")) == nil)
        #expect(throws: JournalError.self) { try database.delete(.default) }
        let again = try store("gone", in: database)
        let second = try #require(try database.describe(id("gone")))
        #expect(second.version == 0 && second.incarnation != first.incarnation)
        #expect(try again.recover().lastVersion == 0 && again.answer(forKey: "k") == nil && again.snapshot(atOrBefore: 9) == nil)
        // The old view still names the deleted store: refused, never written into the new one.
        let refusal = try #require(throws: JournalError.self) { try gone.append([record(3)]) }
        #expect(refusal.code == .closed && refusal.message.contains("store gone was deleted"), "\(refusal.message)")
        #expect(try again.records(after: 0, limit: 10).isEmpty)
        #expect(try keep.recover().lastVersion == 2 && keep.answer(forKey: "k") != nil, "the other store is untouched")
    }

    /// One transaction of several stores' parts, some of which cannot be written here (a closed
    /// view, a storage of no file): those are refused alone, each answer at its part's place, and
    /// the others are stored.
    @Test func partsThatAreNoStoreOfTheFileAreRefusedInPlaceAndTheOthersStored() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let first = try store("first", in: database)
        let closed = try store("closed", in: database)
        let last = try store("last", in: database)
        closed.close()
        let results = try database.write([
            JournalWrite(storage: first, records: [record(1)], answers: []),
            JournalWrite(storage: closed, records: [record(1)], answers: []),
            JournalWrite(storage: MemoryJournalStorage(), records: [record(1)], answers: []),
            JournalWrite(storage: last, records: [record(1), record(2)], answers: []),
        ])
        #expect(results.map { $0?.code } == [nil, .closed, .closed, nil])
        #expect(results[1]?.message.contains("store closed") == true && results[2]?.message.contains("is not a store of") == true)
        #expect(try first.recover().lastVersion == 1 && last.recover().lastVersion == 2)
        #expect(try database.write([JournalWrite(storage: first, records: [record(2)], answers: [])]).map { $0?.code } == [nil])
    }

    @Test func creationRespectsTheLimitAndMakesOneStoreOfAnId() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        #expect(try database.count() == 1, "the default store always exists")
        guard case .created(let made) = try database.create(id("a"), limit: 3, at: 42) else {
            Issue.record("not created")
            return
        }
        #expect(made.version == 0 && made.createdAt == 42 && made.lastActionAt == nil)
        #expect(try database.create(id("a"), limit: 3, at: 43) == .existed(made))
        _ = try database.create(id("b"), limit: 3, at: 44)
        #expect(try database.create(id("c"), limit: 3, at: 45) == .limitReached)
        #expect(try database.count() == 3)
        // Concurrent creations of one id: one store.
        let outcomes = Lock<[StoreCreation]>([])
        let errors = runOnThreads(8) { _ in
            let outcome = try database.create(try StoreID("same"), limit: 100, at: 50)
            outcomes.withLock { $0.append(outcome) }
        }
        #expect(errors.isEmpty)
        let created = outcomes.withLock { $0 }.filter { if case .created = $0 { true } else { false } }
        #expect(created.count == 1)
        #expect(try database.count() == 4)
        #expect(try database.delete(id("a")))
        #expect(try database.count() == 3)
    }

    @Test func listingIsOrderedByIdAndPagesByPrefixAndAfter() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        for name in ["room-2", "Room-1", "room-10", "room", "roomy", "lobby", "room-1"] {
            _ = try database.create(id(name), limit: 100, at: 1)
        }
        let all = try database.list(prefix: "", after: nil, limit: 100).map(\.id.rawValue)
        #expect(all == ["Room-1", "default", "lobby", "room", "room-1", "room-10", "room-2", "roomy"], "byte order")
        #expect(try database.list(prefix: "room-", after: nil, limit: 100).map(\.id.rawValue) == ["room-1", "room-10", "room-2"])
        let firstPage = try database.list(prefix: "room", after: nil, limit: 2).map(\.id)
        #expect(firstPage.map(\.rawValue) == ["room", "room-1"])
        let secondPage = try database.list(prefix: "room", after: firstPage.last, limit: 2).map(\.id.rawValue)
        #expect(secondPage == ["room-10", "room-2"])
        #expect(try database.list(prefix: "room", after: id("room-2"), limit: 2).map(\.id.rawValue) == ["roomy"])
        #expect(try database.list(prefix: "zzz", after: nil, limit: 10).isEmpty)
    }

    @Test func aFormatTwoFileBecomesTheDefaultStoreWithItsChecksumsUnchanged() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-format2")
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        do {
            // The tables as format 2 made them; the checksums as format 2 computed them.
            let database = try EarlierJournalFormat.create(format: 2, at: path)
            let insert = try database.prepare("INSERT INTO actions VALUES (?1, 'increase', CAST('{}' AS BLOB), ?2, ?3)")
            for version: UInt64 in 1...5 {
                insert.reset()
                try insert.bind(1, Int64(version))
                try insert.bind(2, record(version).time)
                try insert.bind(3, Int64(record(version).checksum))
                try insert.run()
            }
            try database.execute("""
                INSERT INTO snapshots VALUES (3, CAST('{"counter":3}' AS BLOB), 1, \(snapshot(3).checksum));
                INSERT INTO answers VALUES ('order-1', X'01', 200, CAST('{}' AS BLOB), 7);
                """)
        }
        let file = try SQLiteJournalFile(directory: directory.path)
        #expect(file.format == 2, "verify reads it as it is")
        #expect(try file.records(after: 0, limit: 10).allSatisfy(\.isIntact))
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            defer { database.close() }
            let recovery = try database.recover()
            #expect(recovery.snapshot == snapshot(3) && recovery.lastVersion == 5)
            #expect(try database.records(after: 0, limit: 10) == (1...5).map { record($0) }, "every record intact")
            #expect(try database.answer(forKey: "order-1")?.time == 7)
            let description = try #require(try database.describe(.default))
            #expect(description.version == 5 && description.lastActionAt == record(5).time)
            try database.append([record(6)])
        }
        let upgraded = try SQLiteJournalFile(directory: directory.path)
        #expect(try upgraded.format == SQLiteJournalStorage.format && upgraded.stores() == [.default])
        #expect(try upgraded.records(after: 0, limit: 10).map(\.version) == Array(1...6))
    }

    @Test func aStoresHeadStaysRightWhenRetentionRemovesItsRecords() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let room = try store("room-1", in: database)
        try room.append((1...10).map { record($0) })
        try room.saveSnapshot(snapshot(9))
        try room.saveSnapshot(snapshot(10))
        try room.removeRecords(through: 10)
        #expect(try room.records(after: 0, limit: 100).map(\.version) == [10], "never past the older snapshot, 9")
        let description = try #require(try database.describe(id("room-1")))
        #expect(description.version == 10 && description.lastActionAt == record(10).time)
        try room.append([record(11)])
        #expect(try database.list(prefix: "room", after: nil, limit: 10).map(\.version) == [11])
        #expect(try database.describe(id("room-1"))?.lastActionAt == record(11).time)
    }

    @Test(arguments: RecordTable.allCases)
    func aHeadRowThatEarlierBuildsWroteInEveryCommitReadsTheSame(table: RecordTable) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-stores")
        let path = directory.path + "/" + SQLiteJournalStorage.fileName
        do {
            let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
            defer { table.close(database) }
            try database.append((1...3).map { record($0) })
            let gone = try store("gone-records", in: database)
            try gone.append((1...4).map { record($0) })
        }
        do {
            // What `7960292` left: every head row as its last commit wrote it; for one store, the
            // records removed since (retention), so that only the row knows the head.
            let database = try SQLiteDatabase(path: path, create: false)
            try database.execute("""
                UPDATE stores SET version = 3, last_action_at = \(record(3).time) WHERE id = 'default';
                UPDATE stores SET version = 4, last_action_at = \(record(4).time) WHERE id = 'gone-records';
                \(table.aim("DELETE FROM actions WHERE store = (SELECT key FROM stores WHERE id = 'gone-records')"));
                """)
        }
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        #expect(try database.describe(.default)?.version == 3)
        #expect(try database.describe(.default)?.lastActionAt == record(3).time)
        let gone = try #require(try database.describe(id("gone-records")))
        #expect(gone.version == 4 && gone.lastActionAt == record(4).time)
        try database.append([record(4)])
        #expect(try database.describe(.default)?.version == 4)
    }
}
