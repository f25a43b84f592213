import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// A replica's three PostgreSQL threads (`log-append`, `log-follower`, `key-lookup`) each end on
/// their stop, which waits for them: what they hold is answered first, nothing is left waiting.
@Suite(.serialized) struct PostgresThreadStopTests {
    @Test func theAppendersStopAppendsWhatIsQueuedAndEndsItsThread() throws {
        let server = try PostgresServer()
        let commit = PostgresGroupCommit(conninfo: server.conninfo, gatherWindow: .seconds(60))
        let outcomes = Mailbox<Result<LogGroupOutcome, PostgresLogError>>()
        #expect(commit.start())
        #expect(commit.isThreadRunning)
        // The thread gathers for up to a minute: the stop cuts the wait short and appends.
        commit.submit(LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 1)])) { outcomes.post($0) }
        try commit.stop(timeout: .seconds(30))
        #expect(!commit.isThreadRunning)
        #expect(try outcomes.next(timeout: .zero)?.get() == .appended(1...1))
    }

    @Test func theFollowersStopEndsItsThreadAndAnswersItsWaiters() throws {
        let server = try PostgresServer()
        let statuses = Mailbox<PostgresLogFollower.Status>()
        let follower = PostgresLogFollower(
            conninfo: server.conninfo, applied: 0, pollInterval: .seconds(60), onStatus: { statuses.post($0) }, apply: { _ in }
        )
        #expect(follower.start())
        #expect(follower.isThreadRunning)
        var status = statuses.next(timeout: .seconds(30))
        while let seen = status, seen != .following { status = statuses.next(timeout: .seconds(30)) }
        #expect(status == .following, "the follower waits for the doorbell")
        let heard = Mailbox<Bool>()
        follower.whenApplied(5, of: .default, timeout: .seconds(60)) { heard.post($0) }
        try follower.stop(timeout: .seconds(30))
        #expect(!follower.isThreadRunning)
        #expect(heard.next(timeout: .zero) == false, "a waiter hears that version 5 will not come")
        #expect(follower.connectionStatus == .stopped(nil))
    }

    @Test func aFollowerNeverStartedStopsAtOnceAndAnswersItsWaiters() throws {
        let follower = PostgresLogFollower(conninfo: "host=/nonexistent", applied: 0, apply: { _ in })
        let heard = Mailbox<Bool>()
        follower.whenApplied(1, of: .default, timeout: .seconds(60)) { heard.post($0) }
        try follower.stop(timeout: .seconds(1))
        #expect(!follower.isThreadRunning)
        #expect(heard.next(timeout: .zero) == false)
        #expect(!follower.start(), "a stopped follower does not start")
    }

    @Test func theKeyLookupsStopEndsItsThreadAndLaterLookupsFailAtOnce() throws {
        let server = try PostgresServer()
        let lookup = PostgresAnswerLookup(conninfo: server.conninfo)
        #expect(!lookup.isThreadRunning, "started by the first lookup")
        let answers = Mailbox<Result<KeptAnswer?, PostgresLogError>>()
        lookup.lookUp("absent") { answers.post($0) }
        #expect(try answers.next(timeout: .seconds(30))?.get() == .some(nil))
        #expect(lookup.isThreadRunning)
        try lookup.stop(timeout: .seconds(30))
        #expect(!lookup.isThreadRunning)
        lookup.lookUp("later") { answers.post($0) }
        guard case .failure(let error)? = answers.next(timeout: .zero) else {
            Issue.record("a lookup after the stop was not refused at once")
            return
        }
        #expect(error.code == .closed)
    }
}
