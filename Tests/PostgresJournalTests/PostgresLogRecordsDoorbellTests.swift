import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The doorbell that carries an append's rows (`PostgresLogDoorbell+Records`): what the appender
/// writes is what a follower reads back, whatever the texts hold; anything unreadable falls back to
/// the heads (a read); a follower applies the rows without reading the log.
@Suite struct PostgresLogRecordsDoorbellTests {
    private static let a = StoreID.make("room-a"), b = StoreID.make("room-b")

    private func entry(_ version: UInt64, _ type: String, _ payload: String, key: String? = nil) -> LogEntry {
        LogEntry(record: JournalRecord(version: version, type: type, payload: Array(payload.utf8), time: -5), idempotencyKey: key)
    }

    /// The rows' text of `rows` (store, ordinal, entry), as the appender writes it.
    private func text(_ rows: [(StoreID, UInt64, LogEntry)]) -> Substring {
        var bytes: [UInt8] = []
        for (store, ordinal, entry) in rows {
            PostgresLogDoorbell.appendRow(
                to: &bytes, store: store, ordinal: ordinal, type: entry.record.type, payload: entry.record.payload,
                time: entry.record.time, key: entry.idempotencyKey
            )
        }
        return String(decoding: bytes, as: UTF8.self)[...]
    }

    @Test func theRowsTheAppenderWritesAreReadBackWithTheirVersionsFromTheHeads() throws {
        // Texts that hold what the format's own separators are, and characters of 2 to 4 bytes.
        let a1 = entry(1, "say", "{\"text\":\"a b\\nc 5 - \"}")
        let a2 = entry(2, "tö ü", "{\"emoji\":\"🙂🙂\",\"é\":1}", key: "key with spaces ✓")
        let b1 = entry(1, "", "")
        let rows = text([(Self.a, 1, a1), (Self.b, 1, b1), (Self.a, 2, a2)])
        let read = PostgresLogDoorbell.records(rows, heads: [Self.a: 9, Self.b: 3])
        func moved(_ entry: LogEntry, to version: UInt64) -> LogEntry {
            var entry = entry
            entry.record.version = version
            return entry
        }
        #expect(read == [Self.a: [moved(a1, to: 8), moved(a2, to: 9)], Self.b: [moved(b1, to: 3)]])
        // A store the heads do not name stored nothing (deleted meanwhile): its rows are left out.
        #expect(PostgresLogDoorbell.records(rows, heads: [Self.a: 9]) == [Self.a: [moved(a1, to: 8), moved(a2, to: 9)]])
    }

    @Test func rowsThatDoNotReadExactlyAreRefusedWhole() throws {
        let good = text([(Self.a, 1, entry(1, "add", "{}")), (Self.a, 2, entry(2, "add", "{}"))])
        #expect(PostgresLogDoorbell.records(good, heads: [Self.a: 2]) != nil)
        #expect(PostgresLogDoorbell.records(good, heads: [Self.a: 1]) == nil, "a head below the rows' count")
        #expect(PostgresLogDoorbell.records(good.dropLast(), heads: [Self.a: 2]) == nil, "a text cut short")
        #expect(PostgresLogDoorbell.records(good + "x", heads: [Self.a: 2]) == nil, "bytes after the last row")
        let skipped = text([(Self.a, 1, entry(1, "add", "{}")), (Self.a, 3, entry(3, "add", "{}"))])
        #expect(PostgresLogDoorbell.records(skipped, heads: [Self.a: 3]) == nil, "ordinals not 1…n")
        #expect(PostgresLogDoorbell.records("room-a 1 5 3 2 -\nadd{}", heads: [Self.a: 1]) != nil)
        for broken in ["room-a 1 5 3 9 -\nadd{}", "room-a 1 x 3 2 -\nadd{}", "room a 1 5 3 2 -\nadd{}", "room-a 1 5 3 2 -add{}",
                       "room-a 0 5 3 2 -\nadd{}", "room-a 1 5 3 2 4\nadd{}"] {
            #expect(PostgresLogDoorbell.records(broken[...], heads: [Self.a: 1]) == nil, "\(broken)")
        }
    }

    @Test func aRecordsDoorbellOffersItsRowsAndItsHeadsTwinAddsNothing() throws {
        let rows = text([(Self.a, 1, entry(1, "add", "{}"))])
        var last: Substring?
        let rung = PostgresLogDoorbell(
            notifications: [(PostgresLogSchema.recordsChannel, "room-a:4\nroom-a:i1\n" + rows), (PostgresLogSchema.channel, "room-a:4")],
            lastRecordsHeads: &last
        )
        #expect(rung == PostgresLogDoorbell(entries: [Self.a: [entry(4, "add", "{}")]], incarnations: [Self.a: "i1"]))
        #expect(last == nil, "the twin came")
        // The twin in the next batch of notifications; then a heads doorbell of another append.
        _ = PostgresLogDoorbell(notifications: [(PostgresLogSchema.recordsChannel, "room-a:4\nroom-a:i1\n" + rows)], lastRecordsHeads: &last)
        #expect(PostgresLogDoorbell(notifications: [(PostgresLogSchema.channel, "room-a:4")], lastRecordsHeads: &last) == PostgresLogDoorbell())
        #expect(PostgresLogDoorbell(notifications: [(PostgresLogSchema.channel, "room-a:4")], lastRecordsHeads: &last)
            == PostgresLogDoorbell(heads: [Self.a: 4]), "not right after its records: a doorbell of its own")
        // Rows that cannot be read: the heads of the records doorbell, read as before.
        let unreadable = PostgresLogDoorbell(
            notifications: [(PostgresLogSchema.recordsChannel, "room-a:4 room-b:2\nroom-a 1 5 3 9 -\nadd{}")], lastRecordsHeads: &last
        )
        #expect(unreadable == PostgresLogDoorbell(heads: [Self.a: 4, Self.b: 2]))
    }

    /// The rows of a store deleted and created again are versions 1, 2… of each incarnation: rung
    /// together, they are never joined into one store's rows, and each names its incarnation.
    @Test func aStoresRowsOfTwoIncarnationsAreNeverJoined() throws {
        let old = text([(Self.a, 1, entry(1, "old", "{}")), (Self.a, 2, entry(2, "old", "{}")), (Self.b, 1, entry(1, "b", "{}"))])
        let new = text([(Self.a, 1, entry(1, "new", "{}"))])
        var last: Substring?
        let rung = PostgresLogDoorbell(notifications: [
            (PostgresLogSchema.recordsChannel, "room-a:2 room-b:1\nroom-a:i1 room-b:j1\n" + old),
            (PostgresLogSchema.channel, "room-a:2 room-b:1"),
            (PostgresLogSchema.channel, "room-a:deleted"),
            (PostgresLogSchema.recordsChannel, "room-a:1\nroom-a:i2\n" + new),
        ], lastRecordsHeads: &last)
        #expect(rung == PostgresLogDoorbell(
            changed: [Self.a], entries: [Self.a: [entry(1, "new", "{}")], Self.b: [entry(1, "b", "{}")]],
            incarnations: [Self.a: "i2", Self.b: "j1"]
        ))
        // Rows of one incarnation in two appends: joined, in order.
        let more = text([(Self.a, 1, entry(2, "new", "{}"))])
        let both = PostgresLogDoorbell(notifications: [
            (PostgresLogSchema.recordsChannel, "room-a:1\nroom-a:i2\n" + new),
            (PostgresLogSchema.recordsChannel, "room-a:2\nroom-a:i2\n" + more),
        ], lastRecordsHeads: &last)
        #expect(both.entries[Self.a]?.map(\.record.version) == [1, 2] && both.changed.isEmpty)
        // A records doorbell without the incarnations' line (an older build's): its heads, read.
        let older = PostgresLogDoorbell(notifications: [(PostgresLogSchema.recordsChannel, "room-a:1\n" + new)], lastRecordsHeads: &last)
        #expect(older == PostgresLogDoorbell(heads: [Self.a: 1]))
    }

    /// Replica B's follower is busy while replica A appends to S (rows rung with the append),
    /// deletes S and creates it again; B then follows the new S from version 0. The old S's rows,
    /// still on their way, are not applied to the new one: B applies the new S's versions only.
    @Test func rowsRungForADeletedStoreAreNotAppliedToTheStoreCreatedAgainUnderItsId() throws {
        let server = try PostgresServer()
        let writer = try PostgresLog(conninfo: server.conninfo)
        defer { writer.close() }
        let busy = StoreID.make("busy")
        #expect(try writer.create(busy, limit: 10, at: 1) != .limitReached)
        let follower = PostgresLogFollower(conninfo: server.conninfo, pollInterval: .seconds(30))
        let entered = Mailbox<Bool>()
        let released = Lock(false)
        follower.follow(busy, applied: 0) { _ in
            entered.post(true)
            _ = released.wait(timeout: .seconds(30)) { $0 }
        }
        #expect(follower.start())
        defer { follower.stop() }
        defer {
            released.withLock { $0 = true }
            released.notifyAll()
        }
        func add(_ type: String) -> LogGroup { LogGroup(actions: [LoggedAction(type: type, payload: [], time: 1)]) }
        #expect(try writer.append([add("hold")], to: busy) == [.appended(1...1)])
        #expect(entered.next(timeout: .seconds(10)) == true, "the follower is busy applying")
        // Meanwhile: S's versions 1–3 (one call each: rows on the doorbell), S deleted, created again.
        #expect(try writer.create(Self.a, limit: 10, at: 1) != .limitReached)
        for type in ["a", "b", "c"] { _ = try writer.append([add(type)], to: Self.a) }
        #expect(try writer.head(of: Self.a) == 3)
        #expect(try writer.delete(Self.a))
        guard case .created = try writer.create(Self.a, limit: 10, at: 2) else {
            Issue.record("\(Self.a) not created again")
            return
        }
        // Rung after all of that: once the follower applied it, it has heard S's doorbells too.
        #expect(try writer.append([add("later")], to: busy) == [.appended(2...2)])
        let collected = Lock<[String]>([])
        follower.follow(Self.a, applied: 0) { page in collected.withLock { $0 += page.map(\.record.type) } }
        released.withLock { $0 = true }
        released.notifyAll()
        #expect(follower.waitUntilApplied(2, of: busy, timeout: .seconds(10)))
        #expect(try writer.append([add("x")], to: Self.a) == [.appended(1...1)])
        #expect(follower.waitUntilApplied(1, of: Self.a, timeout: .seconds(10)))
        // The doorbell brought version 1 of the new S: applied without reading, after the old rows.
        #expect(collected.withLock { $0 } == ["x"])
        #expect(follower.applied(of: Self.a) == 1)
        #expect(follower.status(of: Self.a) == .following || follower.status(of: Self.a) == .connecting)
    }

    @Test func offersStayInVersionOrderEachVersionOnce() {
        let store = FollowedStore(applied: 4, apply: { _ in }, verify: { _, _ in }, onStatus: { _ in })
        let versions = { store.offered.map(\.record.version) }
        store.offer([entry(7, "add", "{}")], last: 7, keeping: 100)  // this replica's append
        store.offer([entry(5, "add", "{}"), entry(6, "add", "{}")], last: 6, keeping: 100)  // another's, rung later
        #expect(versions() == [5, 6, 7])
        store.offer([entry(4, "add", "{}"), entry(5, "add", "{}"), entry(6, "add", "{}"), entry(7, "add", "{}")], last: 7, keeping: 100)
        #expect(versions() == [5, 6, 7], "rung again (this replica's own rows): nothing twice, nothing applied already")
        store.offer([entry(8, "add", "{}")], last: 8, keeping: 100)
        #expect(versions() == [5, 6, 7, 8])
    }

    @Test func aFollowerAppliesAnotherReplicasRowsFromTheDoorbellWithoutReadingThem() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.create(Self.a, limit: 10, at: 1) != .limitReached)
        let payloads = Lock<[UInt64: [UInt8]]>([:])
        let order = Lock<[UInt64]>([])
        let follower = PostgresLogFollower(conninfo: server.conninfo, pollInterval: .seconds(30))
        follower.follow(Self.a, applied: 0) { page in
            payloads.withLock { for entry in page { $0[entry.record.version] = entry.record.payload } }
            order.withLock { $0 += page.map(\.record.version) }
        }
        #expect(follower.start())
        defer { follower.stop() }
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: Array("{\"z\":1}".utf8), time: 1)])], to: Self.a)
            == [.appended(1...1)])
        #expect(follower.waitUntilApplied(1, of: Self.a, timeout: .seconds(10)))
        // Caught up: the next appends reach it by the doorbell. PostgreSQL gives a payload back
        // as `jsonb` writes it (`{"a": 2, "b": 1}`); the doorbell carries it as it was written.
        let written = "{\"b\":1,\"a\":2}"
        let long = "{\"text\":\"" + String(repeating: "x", count: 9_000) + "\"}"
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: Array(written.utf8), time: 2)])], to: Self.a)
            == [.appended(2...2)])
        #expect(follower.waitUntilApplied(2, of: Self.a, timeout: .seconds(10)))
        // Too long for a notification: the heads alone, and the row read from the log.
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: Array(long.utf8), time: 3)])], to: Self.a)
            == [.appended(3...3)])
        #expect(follower.waitUntilApplied(3, of: Self.a, timeout: .seconds(10)))
        // An append that rings only its heads (the checked path: If-Match), then one that rings its
        // rows: the first is read back, the second waits for it and is applied as written.
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: Array(written.utf8), time: 4)], expectedHead: 3)], to: Self.a)
            == [.appended(4...4)])
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: Array(written.utf8), time: 5)])], to: Self.a)
            == [.appended(5...5)])
        #expect(follower.waitUntilApplied(5, of: Self.a, timeout: .seconds(10)))
        let seen = payloads.withLock { $0 }
        #expect(seen[2] == Array(written.utf8), "applied from the doorbell, not read back")
        #expect(seen[3] == Array("{\"text\": \"\(String(repeating: "x", count: 9_000))\"}".utf8), "read back from the log")
        #expect(seen[4] == Array("{\"a\": 2, \"b\": 1}".utf8), "the checked path rings the heads only: read back")
        // Version 5 comes as written from the doorbell, unless the follower's read of version 4
        // came after 5 was stored and read both (then 5 is `jsonb`'s text too): timing, both right.
        #expect(seen[5] == Array(written.utf8) || seen[5] == Array("{\"a\": 2, \"b\": 1}".utf8), "\(String(decoding: seen[5] ?? [], as: UTF8.self))")
        #expect(order.withLock { $0 } == [1, 2, 3, 4, 5], "each version once, in order")
    }

    @Test func appendsRingOnlyTheirHeadsOnceTheNotificationQueueFillsBehindASilentListener() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.create(Self.a, limit: 10, at: 1) != .limitReached)
        // A listener that does not read: idle in a transaction, it takes no notification, and
        // PostgreSQL keeps every one from its position on.
        let silent = try PostgresConnection(conninfo: server.conninfo)
        defer { silent.close() }
        try silent.listen("remvvm_filler")
        _ = try silent.execute("BEGIN")
        // About 1.1 % of the queue (a notification of 7,900 bytes takes one of its 8 KB pages; each
        // payload its own: PostgreSQL sends a transaction's identical notifications once).
        let filler = try PostgresConnection(conninfo: server.conninfo)
        defer { filler.close() }
        _ = try filler.execute("SELECT pg_notify('remvvm_filler', g || repeat('x', 7890)) FROM generate_series(1, 12000) g")
        let usage = try filler.execute("SELECT pg_notification_queue_usage()").rows.first?.first ?? nil
        #expect((usage.flatMap(Double.init) ?? 0) > 0.01, "the queue filled: \(usage ?? "nil")")
        let payloads = Lock<[UInt64: [UInt8]]>([:])
        let follower = PostgresLogFollower(conninfo: server.conninfo, pollInterval: .seconds(30))
        follower.follow(Self.a, applied: 0) { page in
            payloads.withLock { for entry in page { $0[entry.record.version] = entry.record.payload } }
        }
        #expect(follower.start())
        defer { follower.stop() }
        // A first version applied: the follower listens from then on.
        let written = Array("{\"b\":1,\"a\":2}".utf8)
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: written, time: 1)])], to: Self.a) == [.appended(1...1)])
        #expect(follower.waitUntilApplied(1, of: Self.a, timeout: .seconds(10)))
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: written, time: 2)])], to: Self.a) == [.appended(2...2)])
        #expect(follower.waitUntilApplied(2, of: Self.a, timeout: .seconds(10)))
        #expect(payloads.withLock { $0[2] } == Array("{\"a\": 2, \"b\": 1}".utf8), "the heads only: read back as jsonb writes it")
    }
}
