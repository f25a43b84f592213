import Journal
import Logging
import PostgresJournal
import PostgresTestSupport
@testable import ReMVVMServer
import Testing

/// `idempotencyRetention` on replicas: the shared log holds each key once (a unique column), so
/// an expired key must be forgotten there before it is used again, or it would be a duplicate
/// for ever (its stale answer replayed, or 422). Against a real PostgreSQL 15.
@Suite(.serialized) struct ReplicaIdempotencyRetentionTests {
    private static let minute: Int64 = 60_000
    private static let kept: Int64 = 1_700_000_000_000

    private func key(_ value: String, body: String = #"{"type":"increase"}"#) -> IdempotencyKey {
        IdempotencyKey(header: value, method: "POST", path: "/actions", body: Array(body.utf8))!
    }

    private func group(keeping key: IdempotencyKey, at time: Int64) -> LogGroup {
        LogGroup(
            actions: [LoggedAction(type: "increase", payload: [], time: time)],
            answer: KeptAnswer(key: key.value, fingerprint: key.fingerprint, status: 200, body: Array(#"{"version":1}"#.utf8), time: time)
        )
    }

    @Test func anExpiredKeyIsANewRequestAndCanBeKeptAgain() throws {
        let server = try PostgresServer()
        let writer = try PostgresLog(conninfo: server.conninfo)
        defer { writer.close() }
        let shared = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { shared.stop() }
        let keys = IdempotencyKeys(
            backing: .journal(ReplicaStorage(snapshots: MemoryJournalStorage(), log: shared)),
            retention: .seconds(60),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let order = key("order-1")
        #expect(try writer.append([group(keeping: order, at: Self.kept)]) == [.appended(1...1)])

        // Within the retention: the kept answer, for the same request; 422 for another.
        guard case .replay(let answer) = keys.claim(order, now: Self.kept + Self.minute / 2) else {
            Issue.record("the kept answer was not replayed")
            return
        }
        #expect(answer.time == Self.kept)
        guard case .reusedForAnotherRequest = keys.claim(key("order-1", body: #"{"type":"decrease"}"#), now: Self.kept + 1) else {
            Issue.record("another request with the key was not refused")
            return
        }

        // Past it: a new request, even with another body, and the log forgot the key...
        let later = key("order-1", body: #"{"type":"decrease"}"#)
        guard case .fresh = keys.claim(later, now: Self.kept + 2 * Self.minute) else {
            Issue.record("an expired key was not a new request")
            return
        }
        #expect(try writer.answer(forKey: "order-1") == nil)
        // ...so the new request's answer can be kept with it (before: a duplicate key for ever).
        #expect(try writer.append([group(keeping: later, at: Self.kept + 2 * Self.minute)]) == [.appended(2...2)])
        keys.release(later)
        #expect(try writer.answer(forKey: "order-1")?.fingerprint == later.fingerprint)
        #expect(try writer.entries(after: 0, limit: 10).map(\.record.version) == [1, 2], "the records stay")
    }

    @Test func expiredKeysAreForgottenInBulkAndFreshOnesKept() throws {
        let server = try PostgresServer()
        let writer = try PostgresLog(conninfo: server.conninfo)
        defer { writer.close() }
        _ = try writer.append([
            group(keeping: key("old"), at: Self.kept),
            group(keeping: key("new"), at: Self.kept + 10 * Self.minute),
        ])
        let shared = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        defer { shared.stop() }
        try ReplicaStorage(snapshots: MemoryJournalStorage(), log: shared).removeAnswers(keptBefore: Self.kept + Self.minute)
        #expect(try writer.answer(forKey: "old") == nil)
        #expect(try writer.answer(forKey: "new")?.time == Self.kept + 10 * Self.minute)
        #expect(try writer.head() == 2, "the records stay")
    }
}
