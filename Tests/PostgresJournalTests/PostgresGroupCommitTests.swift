import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// ``PostgresGroupCommit``: groups from many threads, appended together, each told its versions;
/// PostgreSQL down → the failed groups are told so at once, and appends resume when it is back.
@Suite(.serialized) struct PostgresGroupCommitTests {
    private static func group(_ size: Int) -> LogGroup {
        LogGroup(actions: (0..<size).map { LoggedAction(type: "increase", payload: [], time: Int64($0)) })
    }

    /// Submits `group` and waits for its outcome.
    private static func submitAndWait(_ commit: PostgresGroupCommit, _ group: LogGroup) -> Result<LogGroupOutcome, PostgresLogError>? {
        let result = Lock<Result<LogGroupOutcome, PostgresLogError>?>(nil)
        commit.submit(group) { outcome in
            result.withLock { $0 = outcome }
            result.notifyAll()
        }
        _ = result.wait(timeout: .seconds(30)) { $0 != nil }
        return result.withLock { $0 }
    }

    @Test func stoppedBeforeItStartedItAnswersWhatWasSubmittedAtOnce() {
        // No PostgreSQL needed: nothing is sent. (Before, stop waited 30 s for a thread that
        // never ran, and the submitted group was never answered.)
        let commit = PostgresGroupCommit(conninfo: "host=/nonexistent")
        let outcome = Lock<Result<LogGroupOutcome, PostgresLogError>?>(nil)
        commit.submit(Self.group(1)) { result in outcome.withLock { $0 = result } }
        commit.stop()
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            Issue.record("the submitted group was not answered by stop")
            return
        }
        #expect(error.code == .closed)
    }

    @Test func groupsFromManyThreadsGetDisjointConsecutiveVersions() throws {
        let server = try PostgresServer()
        let commit = PostgresGroupCommit(conninfo: server.conninfo)
        #expect(commit.start())
        let ranges = Lock<[ClosedRange<UInt64>]>([])
        let errors = runOnThreads(8) { thread in
            for index in 0..<40 {
                guard case .success(.appended(let range)) = Self.submitAndWait(commit, Self.group(1 + (index + thread) % 3)) else {
                    throw PostgresLogError(code: .queryFailed, message: "group \(index) of thread \(thread) was not appended")
                }
                ranges.withLock { $0.append(range) }
            }
        }
        commit.stop()
        #expect(errors.isEmpty, "\(errors)")
        let sorted = ranges.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(sorted.count == 320)
        var next: UInt64 = 1
        for range in sorted {
            #expect(range.lowerBound == next)
            next = range.upperBound + 1
        }
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.head() == next - 1)
        #expect(commit.statistics.groups == 320)
        #expect(commit.statistics.commits <= 320)
    }

    @Test func whilePostgreSQLIsDownGroupsFailAtOnceThenAppendsResume() throws {
        let server = try PostgresServer()
        let commit = PostgresGroupCommit(conninfo: server.conninfo)
        #expect(commit.start())
        defer { commit.stop() }
        #expect(Self.submitAndWait(commit, Self.group(2)) == .success(.appended(1...2)))
        server.stop()
        guard case .failure(let error) = Self.submitAndWait(commit, Self.group(1)) else {
            Issue.record("an append with PostgreSQL down should fail")
            return
        }
        #expect(error.code == .unavailable || error.code == .commitOutcomeUnknown)
        #expect(commit.failure != nil)
        try server.start()
        // The thread reconnects after its pause; a group submitted meanwhile may still fail.
        var outcome = Self.submitAndWait(commit, Self.group(1))
        let deadline = ContinuousClock.now + .seconds(15)
        while case .failure = outcome, ContinuousClock.now < deadline {
            outcome = Self.submitAndWait(commit, Self.group(1))
        }
        #expect(outcome == .success(.appended(3...3)))
        #expect(commit.failure == nil)
    }

    @Test func afterABatchOfNTheNextNGroupsSubmittedOneByOneGoInOneTransaction() throws {
        let server = try PostgresServer()
        let appended = Lock<[[LogEntry]]>([])
        // A window far longer than the test: the second batch can only be complete by gathering.
        let commit = PostgresGroupCommit(conninfo: server.conninfo, gatherWindow: .seconds(60)) { entries, _ in
            appended.withLock { $0.append(entries[.default] ?? []) }
        }
        let outcomes = Lock<[LogGroupOutcome]>([])
        let submit: @Sendable (Int) -> Void = { size in
            commit.submit(Self.group(size)) { result in
                if case .success(let outcome) = result { outcomes.withLock { $0.append(outcome) } }
                outcomes.notifyAll()
            }
        }
        // Queued before the thread starts: the first batch holds all four.
        for size in [1, 2, 1, 1] { submit(size) }
        #expect(commit.start())
        defer { commit.stop() }
        #expect(outcomes.wait(timeout: .seconds(30)) { $0.count == 4 })
        #expect(commit.statistics.commits == 1)
        // One at a time now: the thread waits for the fourth before it appends.
        for size in [1, 1, 3, 1] { submit(size) }
        #expect(outcomes.wait(timeout: .seconds(30)) { $0.count == 8 })
        #expect(commit.statistics.commits == 2)
        #expect(commit.statistics.groups == 8)
        #expect(outcomes.withLock { $0 }.suffix(4) == [.appended(6...6), .appended(7...7), .appended(8...10), .appended(11...11)])
        // onAppended heard each transaction's entries, as stored, before the completions.
        let heard = appended.withLock { $0 }
        #expect(heard.map { $0.map(\.record.version) } == [Array(1...5), Array(6...11)])
        #expect(heard.last?.map(\.record.time) == [0, 0, 0, 1, 2, 0])
    }

    @Test func aLoneGroupIsAppendedAtOnceWhenTheLastBatchHeldOne() throws {
        let server = try PostgresServer()
        let commit = PostgresGroupCommit(conninfo: server.conninfo, gatherWindow: .seconds(60))
        #expect(commit.start())
        defer { commit.stop() }
        // Without gathering to do, a 60 s window must not delay anything.
        let started = ContinuousClock.now
        #expect(Self.submitAndWait(commit, Self.group(1)) == .success(.appended(1...1)))
        #expect(Self.submitAndWait(commit, Self.group(2)) == .success(.appended(2...3)))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(commit.statistics.commits == 2)
    }

    /// A statement trigger for ``groupsStoredOneByOneBeforeTheConnectionBrokeAreAnsweredAsStored()``:
    /// an insert holding an action `refused` fails as data PostgreSQL refuses (SQLSTATE 22023, as
    /// `jsonb` refuses `\u0000`); an insert of the single action `breaks` ends its own connection.
    private static let refusingAndBreakingTrigger = [
        """
        CREATE FUNCTION remvvm_test_refuses_or_breaks() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM appended WHERE type = 'refused') THEN
                RAISE EXCEPTION 'refused for the test' USING ERRCODE = '22023';
            END IF;
            IF (SELECT count(*) FROM appended) = 1 AND EXISTS (SELECT 1 FROM appended WHERE type = 'breaks') THEN
                PERFORM pg_terminate_backend(pg_backend_pid());
                PERFORM pg_sleep(30);
            END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER remvvm_test_refuses_or_breaks AFTER INSERT ON remvvm_log REFERENCING NEW TABLE AS appended
            FOR EACH STATEMENT EXECUTE FUNCTION remvvm_test_refuses_or_breaks()
        """,
    ]

    /// The code of `result`'s error; nil for a success or no result.
    private static func errorCode(_ result: Result<LogGroupOutcome, PostgresLogError>?) -> PostgresLogError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return error.code
    }

    @Test func groupsStoredOneByOneBeforeTheConnectionBrokeAreAnsweredAsStored() throws {
        let server = try PostgresServer()
        let setup = try PostgresLog(conninfo: server.conninfo)  // creates the schema
        defer { setup.close() }
        for statement in Self.refusingAndBreakingTrigger { try setup.connection.execute(statement) }
        let heard = Lock<[UInt64]>([])
        let commit = PostgresGroupCommit(conninfo: server.conninfo) { entries, _ in
            heard.withLock { $0 += (entries[.default] ?? []).map(\.record.version) }
        }
        let results = Lock<[Int: Result<LogGroupOutcome, PostgresLogError>]>([:])
        // Queued before the thread starts: one batch, refused for its data as a whole, then
        // appended group by group — the first stored, the second refused, the third breaking the
        // connection during its own commit, the fourth never sent.
        for (index, type) in ["increase", "refused", "breaks", "increase"].enumerated() {
            commit.submit(LogGroup(actions: [LoggedAction(type: type, payload: [], time: 0)])) { result in
                results.withLock { $0[index] = result }
                results.notifyAll()
            }
        }
        #expect(commit.start())
        defer { commit.stop() }
        #expect(results.wait(timeout: .seconds(30)) { $0.count == 4 })
        let answered = results.withLock { $0 }
        #expect(answered[0] == .success(.appended(1...1)), "a group stored before the connection broke is answered as stored")
        guard case .success(.unstorable)? = answered[1] else {
            Issue.record("the group with refused data: \(String(describing: answered[1]))")
            return
        }
        #expect(Self.errorCode(answered[2]) == .commitOutcomeUnknown, "the group whose commit broke: \(String(describing: answered[2]))")
        #expect(Self.errorCode(answered[3]) == .unavailable, "the group never sent: \(String(describing: answered[3]))")
        #expect(heard.withLock { $0 } == [1])
        #expect(commit.failure?.code == .commitOutcomeUnknown)
        #expect(try setup.head() == 1)
    }
}
