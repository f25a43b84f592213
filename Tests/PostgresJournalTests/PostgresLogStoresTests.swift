import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The log keyed by store: each store has its own versions, head row, idempotency keys and
/// answers; appenders of different stores never wait for each other's head, appenders of one
/// store still do; one append carries several stores' groups, each checked against its own head.
@Suite struct PostgresLogStoresTests {
    private func action(_ index: Int) -> LoggedAction {
        LoggedAction(type: "add", payload: Array("{\"by\":\(index)}".utf8), time: 1_700_000_000_000 + Int64(index))
    }

    private func keyed(_ key: String, _ index: Int) -> LogGroup {
        LogGroup(actions: [action(index)], answer: KeptAnswer(key: key, fingerprint: [7], status: 200, body: Array("{\"i\":\(index)}".utf8), time: 5))
    }

    private static let a = StoreID.make("room-a"), b = StoreID.make("room-b")

    /// A log with the stores `room-a` and `room-b` created.
    private func logWithTwoStores(_ server: PostgresServer) throws -> PostgresLog {
        let log = try PostgresLog(conninfo: server.conninfo)
        for store in [Self.a, Self.b] {
            guard case .created = try log.create(store, limit: 10, at: 1) else {
                throw PostgresLogError(code: .queryFailed, message: "\(store) not created")
            }
        }
        return log
    }

    @Test func theDoorbellNamesEachStoreWithItsNewestHead() {
        let rung = PostgresLogDoorbell(payloads: ["room-a:3 default:7", "room-a:5", "room-b:deleted"])
        #expect(rung == PostgresLogDoorbell(heads: [Self.a: 5, .default: 7], changed: [Self.b]))
        #expect(PostgresLogDoorbell(payloads: [""]).everything, "too many stores for one payload: read every head")
        #expect(PostgresLogDoorbell(payloads: ["7"]).everything, "a payload naming no store")
        #expect(PostgresLogDoorbell.payload([(Self.a, 3), (Self.b, 4)]) == "room-a:3 room-b:4")
        let many = (0..<100).map { (StoreID.make(String(repeating: "x", count: 120) + "\($0)"), UInt64($0)) }
        #expect(PostgresLogDoorbell.payload(many) == "")
    }

    @Test func aDoorbellsHeadIsDecimalDigitsOnlyAndAnythingElseMeansReadTheStoresHead() {
        let rung = PostgresLogDoorbell(payloads: ["room-a:12  room-b:x default:18446744073709551616 room-a:9"])
        #expect(rung == PostgresLogDoorbell(heads: [Self.a: 12], changed: [Self.b, .default]), "past UInt64, a letter: not a head")
        #expect(PostgresLogDoorbell(payloads: ["room-a:"]) == PostgresLogDoorbell(changed: [Self.a]))
        #expect(PostgresLogDoorbell(payloads: [":5", "room a:5"]).everything, "no store id, or not a store id")
        #expect(PostgresLogDoorbell(payloads: ["room-a:18446744073709551615"]) == PostgresLogDoorbell(heads: [Self.a: .max]))
    }

    @Test func eachStoreHasItsOwnVersionsHeadsKeysAndAnswers() throws {
        let server = try PostgresServer()
        let log = try logWithTwoStores(server)
        defer { log.close() }
        #expect(try log.append([LogGroup(actions: [action(1), action(2)])], to: Self.a) == [.appended(1...2)])
        #expect(try log.append([LogGroup(actions: [action(3)])], to: Self.b) == [.appended(1...1)])
        // One key in two stores: each store keeps its own; a retry in a store is refused there only.
        #expect(try log.append([keyed("k", 4)], to: Self.a) == [.appended(3...3)])
        #expect(try log.append([keyed("k", 5)], to: Self.b) == [.appended(2...2)])
        #expect(try log.append([keyed("k", 6)], to: Self.a) == [.duplicateKey("k")])
        #expect(try log.answer(forKey: "k", in: Self.a)?.body == Array("{\"i\":4}".utf8))
        #expect(try log.answer(forKey: "k", in: Self.b)?.body == Array("{\"i\":5}".utf8))
        #expect(try log.answer(forKey: "k") == nil, "the store default holds no key k")
        #expect(try log.head(of: Self.a) == 3)
        #expect(try log.head(of: Self.b) == 2)
        #expect(try log.head() == 0)
        #expect(try log.entries(of: Self.a, after: 0, limit: 10).map(\.record.time) == [1, 2, 4].map { 1_700_000_000_000 + $0 })
        #expect(try log.entries(of: Self.b, after: 1, limit: 10).map(\.idempotencyKey) == ["k"])
        let both = try log.entries(after: [Self.a: 1, Self.b: 0, .default: 0], limit: 10)
        #expect(both[Self.a]?.map(\.record.version) == [2, 3])
        #expect(both[Self.b]?.map(\.record.version) == [1, 2])
        #expect(both[.default] == nil)
        #expect(try log.describe(Self.a)?.lastActionAt == 1_700_000_000_004)
        // Expiry is per store too.
        try log.removeAnswers(of: Self.a, keptBefore: 6)
        #expect(try log.answer(forKey: "k", in: Self.a) == nil)
        #expect(try log.answer(forKey: "k", in: Self.b) != nil)
    }

    @Test func oneAppendCarriesSeveralStoresEachCheckedAgainstItsOwnHead() throws {
        let server = try PostgresServer()
        let log = try logWithTwoStores(server)
        defer { log.close() }
        #expect(try log.append([LogGroup(actions: [action(1)])], to: Self.b) == [.appended(1...1)])
        let missing = StoreID.make("never-created")
        // The one-call path (no If-Match) and the checked one (If-Match), each with both stores.
        #expect(try log.append([
            StoreLogGroup(LogGroup(actions: [action(2)]), to: Self.a),
            StoreLogGroup(LogGroup(actions: [action(3), action(4)]), to: Self.b),
            StoreLogGroup(LogGroup(actions: [action(5)]), to: Self.a),
            StoreLogGroup(LogGroup(actions: [action(6)]), to: missing),
        ]) == [.appended(1...1), .appended(2...3), .appended(2...2), PostgresLog.missing(missing)])
        #expect(try log.append([
            StoreLogGroup(LogGroup(actions: [action(7)], expectedHead: 2), to: Self.a),
            StoreLogGroup(LogGroup(actions: [action(8)], expectedHead: 2), to: Self.b),
            StoreLogGroup(LogGroup(actions: [action(9)], expectedHead: 3), to: Self.b),
            StoreLogGroup(LogGroup(actions: [action(10)], expectedHead: 0), to: missing),
        ]) == [.appended(3...3), .headMoved(head: 3), .appended(4...4), PostgresLog.missing(missing)])
        #expect(try log.head(of: Self.a) == 3)
        #expect(try log.head(of: Self.b) == 4)
        #expect(throws: PostgresLogError.self) { try log.head(of: missing) }
    }

    /// Replica B serves `room-a` at version 3; replica A deletes it, creates it again and appends
    /// 3 versions before B's follower notices. B's appends state the incarnation B serves: refused
    /// as a missing store's, with `If-Match` (B's tag of version 3 must not match the new store's
    /// version 3) and without (B would answer a version it does not hold).
    @Test func anAppendToAStoreDeletedAndCreatedAgainIsRefused() throws {
        let server = try PostgresServer()
        let writer = try logWithTwoStores(server)
        defer { writer.close() }
        #expect(try writer.append([LogGroup(actions: [action(1), action(2), action(3)])], to: Self.a) == [.appended(1...3)])
        let replica = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { replica.stop() }
        let view = replica.view(of: Self.a)
        try view.start(applied: 3) { _ in }
        #expect(waitUntil(timeout: .seconds(10)) { view.status == .following }, "\(view.status)")
        #expect(try writer.delete(Self.a))
        guard case .created = try writer.create(Self.a, limit: 10, at: 2) else {
            Issue.record("\(Self.a) not created again")
            return
        }
        #expect(try writer.append([LogGroup(actions: [action(4), action(5), action(6)])], to: Self.a) == [.appended(1...3)])
        func submit(_ group: LogGroup) -> Result<LogGroupOutcome, JournalError>? {
            let outcome = Mailbox<Result<LogGroupOutcome, JournalError>>()
            view.submit(group) { outcome.post($0) }
            return outcome.next(timeout: .seconds(30))
        }
        #expect(submit(LogGroup(actions: [action(7)], expectedHead: 3)) == .success(.storeNotFound))
        #expect(submit(LogGroup(actions: [action(8)])) == .success(.storeNotFound))
        #expect(submit(LogGroup(actions: [], answer: KeptAnswer(key: "k", fingerprint: [1], status: 202, body: [], time: 1)))
            == .success(.storeNotFound), "an answer kept without actions too")
        #expect(try writer.head(of: Self.a) == 3, "nothing appended to the new store")
        // A group stating the new incarnation is appended, on either path.
        let current = try #require(try writer.describe(Self.a)).incarnation
        #expect(try writer.append([StoreLogGroup(LogGroup(actions: [action(9)]), to: Self.a, incarnation: current)]) == [.appended(4...4)])
        #expect(try writer.append([StoreLogGroup(LogGroup(actions: [action(10)], expectedHead: 4), to: Self.a, incarnation: current)])
            == [.appended(5...5)])
    }

    /// The head row of `room-a` held by another transaction (an append of `room-a` in flight):
    /// an append of `room-b` goes through at once, one of `room-a` waits for it as before.
    @Test func writersOfDifferentStoresNeverWaitForEachOthersHead() throws {
        let server = try PostgresServer()
        let log = try logWithTwoStores(server)
        defer { log.close() }
        // Either wait fails the append (a statement cancelled after 2 s) instead of hanging.
        try log.limitStatements(to: .seconds(2))
        let holder = try PostgresConnection(conninfo: server.conninfo)
        defer { holder.close() }
        try holder.execute("BEGIN")
        try holder.execute("SELECT version FROM remvvm_head WHERE store = 'room-a' FOR UPDATE")
        #expect(try log.append([LogGroup(actions: [action(1)])], to: Self.b) == [.appended(1...1)])
        #expect(try log.append([LogGroup(actions: [action(2)], expectedHead: 1)], to: Self.b) == [.appended(2...2)])
        let waited = try #require(throws: PostgresLogError.self) {
            _ = try log.append([LogGroup(actions: [action(3)])], to: Self.a)
        }
        #expect(waited.sqlState == "57014", "the append of room-a waited for its head until cancelled: \(waited)")
        try holder.execute("COMMIT")
        #expect(try log.append([LogGroup(actions: [action(3)])], to: Self.a) == [.appended(1...1)])
    }

    /// Two writers of one store with `If-Match` on the same head: one appends, the other is told
    /// the head moved — across connections, as across replicas.
    @Test func writersOfOneStoreStillConflict() throws {
        let server = try PostgresServer()
        let first = try logWithTwoStores(server)
        defer { first.close() }
        let second = try PostgresLog(conninfo: server.conninfo)
        defer { second.close() }
        #expect(try first.append([LogGroup(actions: [action(1)], expectedHead: 0)], to: Self.a) == [.appended(1...1)])
        #expect(try second.append([LogGroup(actions: [action(2)], expectedHead: 0)], to: Self.a) == [.headMoved(head: 1)])
        #expect(try second.append([LogGroup(actions: [action(2)], expectedHead: 0)], to: Self.b) == [.appended(1...1)])
        // Concurrent writers of one store: gapless versions, none twice.
        let ranges = Lock<[ClosedRange<UInt64>]>([])
        let conninfo = server.conninfo
        let errors = runOnThreads(4) { _ in
            let log = try PostgresLog(conninfo: conninfo)
            defer { log.close() }
            for index in 0..<20 {
                guard case .appended(let range) = try log.append([LogGroup(actions: [action(index)])], to: Self.a).first else {
                    throw PostgresLogError(code: .queryFailed, message: "not appended")
                }
                ranges.withLock { $0.append(range) }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(ranges.withLock { $0 }.map(\.lowerBound).sorted() == Array(2...81))
    }
}

extension StoreID {
    /// A store id the test knows to be valid.
    static func make(_ text: String) -> StoreID {
        guard let id = try? StoreID(text) else { fatalError("\(text) is no store id") }
        return id
    }
}
