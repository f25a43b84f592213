import ConcurrencyKit
import Glibc
import HTTPTestSupport
import Journal
import SQLiteJournal
import Testing

/// A command is dispatched as `POST /actions` would be (docs/http-api.md, "View-model commands"):
/// the same `If-Match`, `Idempotency-Key` and durable answers.
@Suite struct CommandDispatchTests {
    private static let ada = #"{"firstName":"Ada","lastName":"Lovelace"}"#

    @Test(arguments: Transport.allCases, [true, false])
    func ifMatchAppliesOnlyAtThatVersionElse412(transport: Transport, journaled: Bool) throws {
        let live = try LiveServer(transport: transport, journal: journaled ? MemoryJournalStorage() : nil)
        #expect(try live.command("counter/commands/increase", headers: [("If-Match", live.etag(0))]).status == 200)
        let stale = try live.command("counter/commands/increase", headers: [("If-Match", live.etag(0))])
        #expect(stale.status == 412)
        #expect(stale.headers["ETag"] == live.etag(1))
        #expect(stale.problem?.type == "urn:remvvm:problem:version-mismatch")
        #expect(stale.problem?.currentVersion == 1)
        #expect(try live.command("counter/commands/increase", headers: [("If-Match", "W/" + live.etag(1))]).status == 412)
        #expect(try live.command("counter/commands/increase", headers: [("If-Match", "*")]).status == 200)
        #expect(live.store.version == 2)
    }

    @Test(arguments: [true, false])
    func aRetriedKeyGetsTheKeptAnswerEvenOnceTheViewModelIsGone(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let key = [("Idempotency-Key", "login-1")]
        let first = try live.command("login/commands/login", Self.ada, headers: key)
        #expect(first.bodyString == #"{"version":1}"#)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        // The login screen is gone now; the retry is answered from the key, not the view model.
        let retry = try live.command("login/commands/login", Self.ada, headers: key)
        #expect(retry.status == 200)
        #expect(retry.bodyString == #"{"version":1}"#)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(live.store.version == 1, "the retry dispatched nothing")
    }

    @Test(arguments: [true, false])
    func aKeyReusedOnAnotherCommandKeyOrBodyIs422(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let key = [("Idempotency-Key", "k")]
        #expect(try live.command("counter/commands/increase", "{}", headers: key).status == 200)
        for (target, body) in [("counter/commands/decrease", "{}"), ("counter/commands/increase?key=a", "{}"),
                               ("counter/commands/increase", #"{"n":1}"#)] {
            let reused = try live.command(target, body, headers: key)
            #expect(reused.status == 422, "\(target) \(body)")
            #expect(reused.problem?.type == "urn:remvvm:problem:idempotency-key-reused")
        }
        let actionWithKey = try live.send(
            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")] + key,
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(actionWithKey.problem?.type == "urn:remvvm:problem:idempotency-key-reused", "POST /actions is another path")
        #expect(live.store.version == 1)
    }

    /// A command decides on the store's newest state, in the step that dispatches what it
    /// decides: with a journal, a second login while the first one's version waits for its commit
    /// finds somebody logged in (from a review: it decided on the durable state, and of 16
    /// concurrent logins on a durable server up to 16 were answered 200, 30 logins in 5 rounds
    /// reduced while somebody was logged in).
    @Test func aCommandDecidesOnTheNewestStateNotOnlyOnTheDurableOne() throws {
        let (live, storage) = try LiveServer.withCommitsHeld()
        let answers = raceAHeldCommit(of: storage) {
            try live.command("login/commands/login", Self.ada)
        } second: {
            // Version 1 (the first login) is reduced and waits for its commit.
            try live.command("login/commands/login", Self.ada)
        } whileHeld: { secondAnswers in
            // A bounded negative check: the refusal, decided on the state with the first
            // login, is not sent before that state is durable (from a review: it was, and a
            // crash could still have undone the login it named).
            #expect(secondAnswers.next(timeout: .milliseconds(300)) == nil, "no answer before version 1 is durable")
            #expect(live.store.version == 1, "no second login dispatched")
        }
        #expect(answers.first?.bodyString == #"{"version":1}"#)
        let answer = answers.second
        #expect(answer?.status == 404, "refused on the state with the first login: \(String(describing: answer?.bodyString))")
        #expect(answer?.problem?.type == "urn:remvvm:problem:view-model-unavailable")
        #expect(live.store.version == 1, "one login")
    }

    @Test func aRefusedCommandDoesNotUseUpItsKey() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        let key = [("Idempotency-Key", "logout-1")]
        #expect(try live.command("greetings/commands/logout", headers: key).status == 404, "nobody is logged in")
        _ = try live.command("login/commands/login", Self.ada)
        let later = try live.command("greetings/commands/logout", headers: key)
        #expect(later.status == 200, "the 404 was not kept: the retry is processed")
        #expect(later.headers["Idempotent-Replayed"] == nil)
        #expect(live.store.version == 2)
    }

    @Test func aKeyIsCommittedWithTheCommandsActionsAndSurvivesARestart() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-command")
        let key = [("Idempotency-Key", "before-restart")]
        do {
            let live = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
            #expect(try live.command("counter/commands/increase", headers: key).bodyString == #"{"version":1}"#)
            live.server.shutdown()
        }
        let restarted = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        let retry = try restarted.command("counter/commands/increase", headers: key)
        #expect(retry.bodyString == #"{"version":1}"#)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(try restarted.get("/viewmodels/counter").bodyString == #"{"counter":"1"}"#)
        #expect(restarted.store.version == 1)
    }

    @Test func aCommandIsAnsweredOnlyOnceItsVersionIsDurable() throws {
        let (live, storage) = try LiveServer.withCommitsHeld()
        let answer = Mailbox<TestHTTPResponse>()
        let thread = startThread(named: "test-client") { [client = HandedOver(live.client())] in
            if let response = try? client.value.send(
                method: "POST", path: "/viewmodels/login/commands/login",
                headers: [("Content-Type", "application/json")], body: Array(Self.ada.utf8)
            ) {
                answer.post(response)
            }
        }
        #expect(thread != nil)
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        #expect(live.store.version == 1, "reduced in memory")
        // A bounded negative check: while the commit is held, no answer, and the view models show
        // the durable state (the login screen is still there).
        #expect(answer.next(timeout: .milliseconds(300)) == nil, "not answered before the commit")
        #expect(try live.get("/viewmodels/login").status == 200)
        // A command decides on the newest state (aCommandDecidesOnTheNewestStateNotOnlyOnTheDurableOne):
        // logout finds Ada logged in, and its answer waits for its own commit, after hers.
        let logout = Mailbox<TestHTTPResponse>()
        let second = startThread(named: "test-client-2") { [client = HandedOver(live.client())] in
            if let response = try? client.value.send(method: "POST", path: "/viewmodels/greetings/commands/logout") {
                logout.post(response)
            }
        }
        #expect(waitUntil { live.store.version == 2 }, "the logout is reduced in memory")
        #expect(logout.next(timeout: .milliseconds(300)) == nil, "not answered before its commit")
        storage.releaseCommits()
        #expect(answer.next(timeout: .seconds(5))?.bodyString == #"{"version":1}"#)
        #expect(logout.next(timeout: .seconds(5))?.bodyString == #"{"version":2}"#)
        #expect(storage.committedRecords.map(\.type) == ["login", "logout"])
        for thread in [thread, second].compactMap({ $0 }) { pthread_join(thread, nil) }
    }

    @Test func whileTheJournalFailsACommandIs503AndDispatchesNothing() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        #expect(try live.command("counter/commands/increase").status == 200)
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full (test)"))
        #expect(try live.command("counter/commands/increase").status == 503)
        #expect(try live.command("counter/commands/increase").status == 503, "refused before dispatch")
        #expect(live.store.version == 2, "the first failing one was dispatched, the next was not")
        storage.failAppends(with: nil)
    }
}
