import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// ``PostgresSharedLog`` as ``Journal/StoreCatalog``: creation with a limit that holds across
/// replicas, descriptions, listings by prefix in id order, deletion of a store's every row.
@Suite struct PostgresStoreCatalogTests {
    private func id(_ text: String) -> StoreID { StoreID.make(text) }

    @Test func theStoreDefaultExistsAndCreationsAreCountedAgainstTheLimit() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { log.stop() }
        let initial = try #require(try log.describe(.default))
        #expect(initial.version == 0 && initial.lastActionAt == nil)
        #expect(initial.incarnation == (try log.identity()), "default's incarnation is the log's identity")
        guard case .existed = try log.create(.default, limit: 10, at: 5) else {
            Issue.record("default exists from the start")
            return
        }
        guard case .created(let created) = try log.create(id("room-1"), limit: 3, at: 1_000) else {
            Issue.record("room-1 should be created")
            return
        }
        #expect(created.id == id("room-1") && created.version == 0 && created.createdAt == 1_000 && created.lastActionAt == nil)
        #expect(created.incarnation != initial.incarnation)
        #expect(try log.create(id("room-1"), limit: 3, at: 2_000) == .existed(created))
        guard case .created = try log.create(id("room-2"), limit: 3, at: 1) else {
            Issue.record("room-2 should be created")
            return
        }
        #expect(try log.create(id("room-3"), limit: 3, at: 1) == .limitReached)
        #expect(try log.count() == 3)
        #expect(try log.describe(id("room-3")) == nil)
    }

    @Test func concurrentCreationsMakeOneStoreOfAnIdAndNeverExceedTheLimit() throws {
        let server = try PostgresServer()
        let outcomes = Lock<[StoreCreation]>([])
        // Six "replicas", each with its own connection: every one creates "shared", and its own
        // store, under a limit of 5 (default + shared + 3 others).
        let conninfo = server.conninfo
        let errors = runOnThreads(6) { index in
            let log = try PostgresLog(conninfo: conninfo)
            defer { log.close() }
            let shared = try log.create(self.id("shared"), limit: 5, at: 1)
            let own = try log.create(self.id("own-\(index)"), limit: 5, at: 1)
            outcomes.withLock { $0 += [shared, own] }
        }
        #expect(errors.isEmpty, "\(errors)")
        let all = outcomes.withLock { $0 }
        let created = all.filter { if case .created = $0 { true } else { false } }
        let existed = all.filter { if case .existed = $0 { true } else { false } }
        #expect(created.count == 4, "shared once, and 3 own stores: \(all)")
        #expect(existed.count + created.count + all.filter { $0 == .limitReached }.count == 12)
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.countStores() == 5)
    }

    @Test func listingsFollowTheIdsBytesWithPrefixAfterAndLimit() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { log.stop() }
        for name in ["room-b", "Room-z", "room-a", "room_c", "room-a.1", "lobby"] {
            _ = try log.create(id(name), limit: 100, at: 1)
        }
        #expect(try log.list(prefix: "", after: nil, limit: 100).map(\.id.rawValue)
            == ["Room-z", "default", "lobby", "room-a", "room-a.1", "room-b", "room_c"])
        #expect(try log.list(prefix: "room-", after: nil, limit: 2).map(\.id.rawValue) == ["room-a", "room-a.1"])
        #expect(try log.list(prefix: "room-", after: id("room-a.1"), limit: 2).map(\.id.rawValue) == ["room-b"])
        #expect(try log.list(prefix: "room_", after: nil, limit: 10).map(\.id.rawValue) == ["room_c"], "_ is no wildcard")
        #expect(try log.list(prefix: "zzz", after: nil, limit: 10).isEmpty)
        #expect(try log.list(prefix: "", after: id("room-b"), limit: 10).map(\.id.rawValue) == ["room_c"])
    }

    @Test func deletingAStoreRemovesItsRowsAndACreationAfterStartsAnew() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { log.stop() }
        let room = id("room-1")
        guard case .created(let first) = try log.create(room, limit: 10, at: 1) else {
            Issue.record("room-1 should be created")
            return
        }
        let raw = try PostgresLog(conninfo: server.conninfo)
        defer { raw.close() }
        let answer = KeptAnswer(key: "k", fingerprint: [1], status: 200, body: Array("{}".utf8), time: 5)
        let kept = KeptAnswer(key: "kept", fingerprint: [1], status: 202, body: Array("{}".utf8), time: 5)
        _ = try raw.append([LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 9)], answer: answer), LogGroup(actions: [], answer: kept)], to: room)
        _ = try raw.append([LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 9)], answer: answer)])
        _ = try raw.register(replica: "r1", snapshot: 1, of: room)
        _ = try raw.register(replica: "r1", snapshot: 0)

        #expect(try log.delete(room))
        #expect(try log.delete(room) == false)
        #expect(throws: JournalError.self) { try log.delete(.default) }
        #expect(try log.describe(room) == nil)
        let left = try raw.run(
            "SELECT (SELECT count(*) FROM remvvm_log WHERE store = 'room-1'), (SELECT count(*) FROM remvvm_answers WHERE store = 'room-1'), (SELECT count(*) FROM remvvm_replicas WHERE store = 'room-1'), (SELECT count(*) FROM remvvm_log), (SELECT count(*) FROM remvvm_replicas)"
        )
        #expect(left.rows == [["0", "0", "0", "1", "1"]], "room-1's rows are gone, default's stay")
        #expect(try raw.append([LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 9)])], to: room) == [PostgresLog.missing(room)])

        guard case .created(let again) = try log.create(room, limit: 10, at: 2) else {
            Issue.record("room-1 should be created again")
            return
        }
        #expect(again.version == 0 && again.incarnation != first.incarnation)
        #expect(try log.view(of: room).identity() == again.incarnation)
        #expect(try raw.append([LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 9)], answer: answer)], to: room) == [.appended(1...1)], "its old key is free again")
    }
}
