import ConcurrencyKit
import Foundation
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The shared log against a real PostgreSQL (Debian's `postgresql`, unix socket, temporary
/// directory): gapless versions in commit order under concurrent appenders, readers that never
/// skip rows, the NOTIFY doorbell, schema versioning, and a restart of PostgreSQL mid-run.
/// One server per test, stopped by PID when the test ends; serialized for the two cores.
@Suite(.serialized) struct PostgresLogTests {
    private func action(_ index: Int, writer: Int = 0) -> LoggedAction {
        LoggedAction(type: "increase", payload: Array(#"{"by": \#(index), "writer": \#(writer)}"#.utf8), time: 1_700_000_000_000 + Int64(index))
    }

    @Test func aGroupGetsConsecutiveVersionsAndReadsBackInOrder() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.head() == 0)
        let answer = KeptAnswer(key: "key-1", fingerprint: [1, 2, 255], status: 200, body: Array(#"{"version":3}"#.utf8), time: 42)
        let outcomes = try log.append([
            LogGroup(actions: [action(1), action(2)]),
            LogGroup(actions: [LoggedAction(type: "reset", payload: [], time: 5)], answer: answer),
        ])
        #expect(outcomes == [.appended(1...2), .appended(3...3)])
        #expect(try log.head() == 3)
        let entries = try log.entries(after: 0, limit: 10)
        #expect(entries.map(\.record.version) == [1, 2, 3])
        #expect(entries[0].record.type == "increase")
        // jsonb normalizes the text; the decoded value is what counts.
        let decoded = try JSONSerialization.jsonObject(with: Data(entries[1].record.payload)) as? [String: Int]
        #expect(decoded == ["by": 2, "writer": 0])
        #expect(entries[2].record.payload.isEmpty && entries[2].idempotencyKey == "key-1")
        #expect(try log.entries(after: 1, limit: 1).map(\.record.version) == [2])
        #expect(try log.answer(forKey: "key-1") == answer)
        #expect(try log.answer(forKey: "other") == nil)
    }

    @Test func quotesAndBackslashesReachTheLogAsWrittenEvenBeforeACombiningMark() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        // `"` then U+0301 is one Character, not equal to `"`: it must be escaped all the same.
        // (Kept out of `#expect`, whose expansion cannot hold a literal of them.)
        let accent = "\u{301}"
        let quoteAccent = "\"" + accent
        let text = "a\(quoteAccent) \\ \"b\" é"
        let type = "rename " + quoteAccent
        let literal = PostgresLog.arrayLiteral(["x" + quoteAccent, nil, "\\"])
        let expected = "{\"x\\" + quoteAccent + "\",NULL,\"\\\\\"}"
        #expect(literal == expected)
        let payload = try JSONSerialization.data(withJSONObject: ["name": text])
        let outcomes = try log.append([LogGroup(actions: [LoggedAction(type: type, payload: Array(payload), time: 1)])])
        #expect(outcomes == [.appended(1...1)])
        let entries = try log.entries(after: 0, limit: 1)
        let readType = entries.first?.record.type
        #expect(readType == type)
        let decoded = try JSONSerialization.jsonObject(with: Data(entries.first?.record.payload ?? [])) as? [String: String]
        #expect(decoded == ["name": text])
    }

    @Test func ifMatchIsCheckedAgainstTheHeadInsideTheTransaction() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        _ = try log.append([LogGroup(actions: [action(1)])])
        let outcomes = try log.append([
            LogGroup(actions: [action(2)], expectedHead: 0),
            LogGroup(actions: [action(3)], expectedHead: 1),
            LogGroup(actions: [action(4)], expectedHead: 1),
        ])
        #expect(outcomes == [.headMoved(head: 1), .appended(2...2), .headMoved(head: 2)])
        #expect(try log.head() == 2)
        #expect(try log.entries(after: 0, limit: 10).count == 2)
    }

    @Test func concurrentAppendersGetGaplessVersionsAndAReaderNeverSkipsARow() throws {
        let server = try PostgresServer()
        let writers = 6
        let groupsPerWriter = 40
        let conninfo = server.conninfo
        let done = Lock(0)
        // A reader follows the log while the writers append: every page must continue exactly
        // where the previous one ended (entries(after:) throws on a gap).
        let reader = Lock<[UInt64]>([])
        let readerErrors = runOnThreads(writers + 1) { index in
            if index == writers {
                let log = try PostgresLog(conninfo: conninfo)
                defer { log.close() }
                var applied: UInt64 = 0
                var seen: [UInt64] = []
                while true {
                    let finished = done.withLock { $0 == writers }
                    let page = try log.entries(after: applied, limit: 37)
                    seen += page.map(\.record.version)
                    applied = page.last?.record.version ?? applied
                    if finished && page.isEmpty { break }
                }
                reader.withLock { $0 = seen }
                return
            }
            let log = try PostgresLog(conninfo: conninfo)
            defer { log.close() }
            for group in 0..<groupsPerWriter {
                let size = 1 + (group + index) % 5
                _ = try log.append([LogGroup(actions: (0..<size).map { action($0, writer: index) })])
            }
            done.withLock { $0 += 1 }
        }
        #expect(readerErrors.isEmpty, "\(readerErrors)")
        let total = (0..<writers).reduce(0) { sum, index in
            sum + (0..<groupsPerWriter).reduce(0) { $0 + 1 + ($1 + index) % 5 }
        }
        let check = try PostgresLog(conninfo: conninfo)
        defer { check.close() }
        #expect(try check.head() == UInt64(total))
        let all = try check.entries(after: 0, limit: total + 10)
        #expect(all.map(\.record.version) == Array(1...UInt64(total)))
        #expect(reader.withLock { $0 } == Array(1...UInt64(total)))
        // Each group's actions are consecutive: a writer's group is never interleaved with another's.
        var index = 0
        while index < all.count {
            let writer = try #require(Self.writer(of: all[index]))
            var length = 1
            while index + length < all.count, Self.writer(of: all[index + length]) == writer,
                Self.by(all[index + length]) == Self.by(all[index + length - 1])! + 1 {
                length += 1
            }
            #expect(Self.by(all[index]) == 0)
            index += length
        }
    }

    @Test func theDoorbellWakesAListenerAndTheFollowerAppliesEverything() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let listener = try PostgresLogListener(conninfo: server.conninfo)
        defer { listener.close() }
        #expect(try listener.wait(upTo: .milliseconds(50)) == .timedOut)
        _ = try log.append([LogGroup(actions: [action(1)])])
        // The append's rows themselves (the heads doorbell that follows repeats the heads: it adds nothing).
        let first = action(1)
        let rung = PostgresLogDoorbell(entries: [.default: [
            LogEntry(record: JournalRecord(version: 1, type: first.type, payload: first.payload, time: first.time), idempotencyKey: nil),
        ]], incarnations: [.default: String(log.identity.prefix(PostgresLogDoorbell.incarnationTokenLength))])
        #expect(try listener.wait(upTo: .seconds(5)) == .rang(rung))

        let applied = Lock<[UInt64]>([])
        // A long poll interval: only the doorbell can make the follower see the second append quickly.
        let follower = PostgresLogFollower(conninfo: server.conninfo, applied: 0, pageSize: 2, pollInterval: .seconds(30)) { page in
            applied.withLock { $0 += page.map(\.record.version) }
        }
        #expect(follower.start())
        defer { follower.stop() }
        #expect(follower.waitUntilApplied(1, timeout: .seconds(10)))
        let started = ContinuousClock.now
        _ = try log.append([LogGroup(actions: [action(2), action(3), action(4)])])
        #expect(follower.waitUntilApplied(4, timeout: .seconds(10)))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(applied.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test func theIndexOfKeptAnswersIsCreatedOnceAndFoundByLaterStarts() throws {
        let server = try PostgresServer()
        // The first start creates it; the second finds it (and does not lock the log for it).
        try PostgresLog(conninfo: server.conninfo).close()
        try PostgresLog(conninfo: server.conninfo).close()
        let raw = try PostgresConnection(conninfo: server.conninfo)
        defer { raw.close() }
        let rows = try raw.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'remvvm_log_answer_time'")
        #expect(rows.rows.count == 1)
        #expect(rows.rows.first?.first??.contains("WHERE (idempotency_key IS NOT NULL)") == true)
        let function = try raw.execute("SELECT count(*) FROM pg_proc WHERE proname = '\(PostgresLogSchema.appendFunction)'")
        #expect(function.rows.first?.first == "1")
    }

    @Test func anIncompatibleSchemaIsRefused() throws {
        let server = try PostgresServer()
        do {
            let log = try PostgresLog(conninfo: server.conninfo)
            log.close()
        }
        let raw = try PostgresConnection(conninfo: server.conninfo)
        try raw.execute("UPDATE remvvm_meta SET value = '99' WHERE key = 'schema'")
        raw.close()
        let error = try #require(throws: PostgresLogError.self) {
            _ = try PostgresLog(conninfo: server.conninfo)
        }
        #expect(error.code == .incompatibleSchema)
        #expect(error.message.contains("schema version 99"))
    }

    @Test func aGroupWithDataPostgresCannotStoreIsRefusedAloneAndTheOthersAreStored() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let unstorable = LoggedAction(type: "rename", payload: Array(#"{"name":"a\u0000b"}"#.utf8), time: 1)
        let outcomes = try log.append([
            LogGroup(actions: [action(1)]),
            LogGroup(actions: [action(2), unstorable]),
            LogGroup(actions: [action(3), action(4)]),
        ])
        #expect(outcomes.count == 3)
        #expect(outcomes[0] == .appended(1...1))
        guard case .unstorable(let reason) = outcomes[1] else {
            Issue.record("the group holding U+0000 should be refused, got \(outcomes[1])")
            return
        }
        #expect(reason.contains("\\u0000"))
        #expect(outcomes[2] == .appended(2...3))
        #expect(try log.head() == 3)
        #expect(try log.entries(after: 0, limit: 10).map(\.record.time) == [1_700_000_000_001, 1_700_000_000_003, 1_700_000_000_004])
        // Alone, too; and the If-Match (checked) path refuses it the same way.
        #expect(try log.append([LogGroup(actions: [unstorable])]).count == 1)
        let checked = try log.append([LogGroup(actions: [unstorable], expectedHeads: [3])])
        guard case .unstorable = checked.first else {
            Issue.record("the checked path should refuse it too, got \(checked)")
            return
        }
        #expect(try log.head() == 3)
    }

    @Test func offeredEntriesAreAppliedInOrderWithTheVersionsBeforeThemReadFromTheLog() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let applied = Lock<[LogEntry]>([])
        let follower = PostgresLogFollower(conninfo: server.conninfo, applied: 0, pageSize: 2, pollInterval: .seconds(30)) { page in
            applied.withLock { $0 += page }
        }
        #expect(follower.start())
        defer { follower.stop() }
        // Versions 1-3 from "another replica", read from the log; 4-5 from this one, offered as its
        // appender does. Offered before they are appended here: once they are in the log, a
        // notification could have the thread read them before the offer, and the test would race.
        _ = try log.append([LogGroup(actions: [action(1), action(2), action(3)])])
        #expect(follower.waitUntilApplied(3, timeout: .seconds(10)))
        follower.offer((4...5).map { version in
            LogEntry(record: JournalRecord(version: version, type: "increase", payload: Array("{\"by\":\(version)}".utf8), time: Int64(version)), idempotencyKey: nil)
        })
        #expect(follower.waitUntilApplied(5, timeout: .seconds(10)))
        let own = LogGroup(actions: [action(4), action(5)])
        #expect(try log.append([own]) == [.appended(4...5)])
        let entries = applied.withLock { $0 }
        #expect(entries.map(\.record.version) == [1, 2, 3, 4, 5])
        // 1-3 were read from the log; 4-5 are the entries offered (their times tell them apart),
        // not read back.
        #expect(entries.map(\.record.time) == [1_700_000_000_001, 1_700_000_000_002, 1_700_000_000_003, 4, 5])
        // Entries offered again, or already applied, are ignored.
        follower.offer(Array(entries.suffix(2)))
        _ = try log.append([LogGroup(actions: [action(6)])])
        #expect(follower.waitUntilApplied(6, timeout: .seconds(10)))
        #expect(applied.withLock { $0 }.map(\.record.version) == [1, 2, 3, 4, 5, 6])
    }

    @Test func anOfferTheLogCannotLeadUpToIsDroppedAndTheLogIsReadInstead() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let applied = Lock<[UInt64]>([])
        let follower = PostgresLogFollower(conninfo: server.conninfo, applied: 0, pollInterval: .milliseconds(200)) { page in
            applied.withLock { $0 += page.map(\.record.version) }
        }
        // Version 10 offered while the log ends at 2: reading 1…9 comes back short, so the offer
        // is not trusted; versions are applied from the log only, never 10 out of nowhere.
        follower.offer([LogEntry(record: JournalRecord(version: 10, type: "increase", payload: [], time: 0), idempotencyKey: nil)])
        _ = try log.append([LogGroup(actions: [action(1), action(2)])])
        #expect(follower.start())
        defer { follower.stop() }
        #expect(follower.waitUntilApplied(2, timeout: .seconds(10)))
        _ = try log.append([LogGroup(actions: [action(3)])])
        #expect(follower.waitUntilApplied(3, timeout: .seconds(10)))
        #expect(applied.withLock { $0 } == [1, 2, 3])
    }

    @Test func aRestartOfPostgreSQLGivesErrorsThenRecovery() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let applied = Lock<UInt64>(0)
        let follower = PostgresLogFollower(conninfo: server.conninfo, applied: 0, pollInterval: .milliseconds(200)) { page in
            applied.withLock { $0 = page.last!.record.version }
        }
        #expect(follower.start())
        defer { follower.stop() }
        _ = try log.append([LogGroup(actions: [action(1), action(2)])])
        #expect(follower.waitUntilApplied(2, timeout: .seconds(10)))

        server.stop()
        let error = try #require(throws: PostgresLogError.self) {
            _ = try log.append([LogGroup(actions: [action(3)])])
        }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("PostgreSQL"))
        #expect(waitUntil(timeout: .seconds(10)) {
            if case .unavailable = follower.status { true } else { false }
        })
        // A connection attempt while it is down fails with a clear error, not a hang.
        #expect(throws: PostgresLogError.self) { _ = try log.head() }
        let down = try #require(throws: PostgresLogError.self) {
            _ = try PostgresLog.connect(to: server.conninfo, retryingFor: .milliseconds(300))
        }
        #expect(down.code == .unavailable)

        try server.start()
        // The next call reconnects; nothing acknowledged before the restart is lost.
        #expect(try log.head() == 2)
        #expect(try log.append([LogGroup(actions: [action(3)])]) == [.appended(3...3)])
        #expect(follower.waitUntilApplied(3, timeout: .seconds(15)))
        #expect(waitUntil(timeout: .seconds(10)) { follower.status == .following })
        #expect(applied.withLock { $0 } == 3)
    }

    private static func writer(of entry: LogEntry) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(entry.record.payload)) as? [String: Int])?["writer"]
    }

    private static func by(_ entry: LogEntry) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(entry.record.payload)) as? [String: Int])?["by"]
    }
}

/// Idempotency keys live in the log: a key already stored, or repeated in the same batch, is
/// refused for that group only, checked under the head's row lock.
@Suite(.serialized) struct PostgresLogIdempotencyTests {
    private func group(_ key: String, _ type: String = "increase") -> LogGroup {
        LogGroup(
            actions: [LoggedAction(type: type, payload: [], time: 1)],
            answer: KeptAnswer(key: key, fingerprint: [9], status: 200, body: Array(#"{"ok":true}"#.utf8), time: 2)
        )
    }

    @Test func aKeyAlreadyInTheLogIsRefusedForItsGroupOnly() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let odd = #"quote " and back\slash"#
        #expect(try log.append([group("a"), group(odd)]) == [.appended(1...1), .appended(2...2)])
        let outcomes = try log.append([
            group("a"), group("b"), group("b"), group(odd), LogGroup(actions: [LoggedAction(type: "reset", payload: [], time: 3)]),
        ])
        #expect(outcomes == [.duplicateKey("a"), .appended(3...3), .duplicateKey("b"), .duplicateKey(odd), .appended(4...4)])
        #expect(try log.entries(after: 0, limit: 10).map(\.record.version) == [1, 2, 3, 4])
        #expect(try log.answer(forKey: odd)?.fingerprint == [9])
    }
}

/// The answer of a request that appended nothing (`202`, or a `422` of its first action) is kept
/// in the log too, in `remvvm_answers`: its key is refused to later groups, in a batch and across
/// appenders, and forgotten with the others when it expires.
@Suite(.serialized) struct PostgresLogAnswerOnlyTests {
    private func group(_ key: String, time: Int64 = 2) -> LogGroup {
        LogGroup(
            actions: [LoggedAction(type: "increase", payload: [], time: 1)],
            answer: KeptAnswer(key: key, fingerprint: [9], status: 200, body: Array(#"{"version":}"#.utf8), time: time),
            answerVersionOffset: 11
        )
    }

    private func held(_ key: String, time: Int64 = 2) -> LogGroup {
        LogGroup(actions: [], answer: KeptAnswer(key: key, fingerprint: [7], status: 202, body: Array(#"{"accepted":true}"#.utf8), time: time))
    }

    @Test func anAnswerWithoutActionsIsKeptAndHoldsItsKeyAgainstEveryLaterGroup() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([held("held")]) == [.kept])
        #expect(try log.head() == 0, "no version was used")
        #expect(try log.answer(forKey: "held")?.status == 202)
        #expect(try log.answer(forKey: "held")?.body == Array(#"{"accepted":true}"#.utf8))
        // A group with actions and that key: refused (the one-call append finds it and falls back
        // to the checked path, which names the group); nothing stored.
        #expect(try log.append([group("held")]) == [.duplicateKey("held")])
        #expect(try log.head() == 0)
        // Within one batch, and against a key on a log row: the first holder wins.
        let outcomes = try log.append([held("x"), group("y"), held("x"), held("y"), held("held"), group("x")])
        #expect(outcomes == [.kept, .appended(1...1), .duplicateKey("x"), .duplicateKey("y"), .duplicateKey("held"), .duplicateKey("x")])
        #expect(try log.answer(forKey: "y")?.body == Array(#"{"version":1}"#.utf8))
        #expect(try log.answer(forKey: "x")?.status == 202)
        #expect(try log.entries(after: 0, limit: 10).map(\.record.version) == [1])
    }

    @Test func anAnswerWithoutActionsWaitsForIfMatchLikeAnyGroup() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        var stale = held("stale")
        stale.expectedHeads = [5]
        var current = held("current")
        current.expectedHeads = [0]
        #expect(try log.append([stale, current]) == [.headMoved(head: 0), .kept])
        #expect(try log.answer(forKey: "stale") == nil)
    }

    @Test func expiredAnswersWithoutActionsAreForgottenWithTheOthers() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([held("old", time: 10), held("new", time: 100), group("row", time: 10)]) == [.kept, .kept, .appended(1...1)])
        try log.removeAnswers(keptBefore: 50)
        #expect(try log.answer(forKey: "old") == nil)
        #expect(try log.answer(forKey: "row") == nil)
        #expect(try log.answer(forKey: "new")?.time == 100)
        try log.removeAnswer(forKey: "new", keptBefore: 100)
        #expect(try log.answer(forKey: "new")?.time == 100, "kept at 100 is not before 100")
        try log.removeAnswer(forKey: "new", keptBefore: 101)
        #expect(try log.answer(forKey: "new") == nil)
        // Forgotten keys can be used again, by either kind of group.
        #expect(try log.append([group("old"), held("row")]) == [.appended(2...2), .kept])
    }

    /// The race the append function closes: an answer committed while a one-call append waits for
    /// the head's row lock. The waiting statement's snapshot predates that commit, so a check in
    /// the same statement would miss the key; the function checks in a command of its own, after
    /// the lock was granted.
    @Test func anAnswerKeptWhileAnAppendWaitsForTheHeadIsSeenByThatAppend() throws {
        let server = try PostgresServer()
        let raced = group("raced")
        // The holder takes the head's row lock and keeps an answer for "raced"; it commits once
        // the append waits for that lock.
        let outcomes = try raceForLock(
            server.conninfo,
            holding: [
                "SELECT version FROM remvvm_head FOR UPDATE",
                "INSERT INTO remvvm_answers VALUES ('raced', 202, '\\x07'::bytea, convert_to('{\"accepted\":true}', 'UTF8'), 2)",
            ],
            waiter: "SELECT \(PostgresLogSchema.appendFunction)%"
        ) { log throws(PostgresLogError) in try log.append([raced]) }
        #expect(outcomes == [.duplicateKey("raced")])
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.head() == 0, "nothing was appended under a key already kept")
    }
}

/// A row this build cannot apply stops the follower there, saying why: it never skips a version.
@Suite struct PostgresLogFollowerStopTests {
    private struct Undecodable: Error, CustomStringConvertible {
        let type: String
        var description: String { "unknown action \(type)" }
    }

    @Test func anEntryThatCannotBeAppliedStopsTheFollowerWithTheReason() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        _ = try log.append([
            LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 1)]),
            LogGroup(actions: [LoggedAction(type: "fromTheFuture", payload: [], time: 2)]),
            LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 3)]),
        ])
        let applied = Lock<[UInt64]>([])
        let follower = PostgresLogFollower(conninfo: server.conninfo, applied: 0, pageSize: 1, pollInterval: .milliseconds(100)) { page in
            for entry in page {
                guard entry.record.type == "increase" else { throw Undecodable(type: entry.record.type) }
                applied.withLock { $0.append(entry.record.version) }
            }
        }
        #expect(follower.start())
        defer { follower.stop() }
        #expect(waitUntil(timeout: .seconds(10)) {
            if case .stopped = follower.status { true } else { false }
        })
        guard case .stopped(let reason?) = follower.status else {
            Issue.record("the follower should have stopped with a reason, is \(follower.status)")
            return
        }
        #expect(reason.contains("version 2") && reason.contains("unknown action fromTheFuture"))
        #expect(follower.applied == 1)
        #expect(applied.withLock { $0 } == [1])
    }
}
