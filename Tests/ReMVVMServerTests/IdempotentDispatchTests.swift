import ConcurrencyKit
import Glibc
import HTTPTestSupport
import Journal
import SQLiteJournal
import Testing

/// `Idempotency-Key` on `POST /actions` (docs/http-api.md, "Conditional and idempotent dispatch"):
/// the first request is processed and its answer kept in the same journal commit as its actions;
/// a retry gets that answer again and dispatches nothing, also after a restart.
@Suite struct IdempotentDispatchTests {
    private static let increase = #"{"type":"increase"}"#

    private func post(
        _ live: LiveServer, key: String, body: String = increase, headers: [(String, String)] = []
    ) throws -> TestHTTPResponse {
        try live.send(
            method: "POST", path: "/actions",
            headers: [("Content-Type", "application/json"), ("Idempotency-Key", key)] + headers,
            body: Array(body.utf8)
        )
    }

    /// Posts an increase with `key` from a thread of its own (the answer may wait for a held
    /// commit); its answer arrives in the mailbox.
    private func postOnAThread(_ live: LiveServer, key: String) -> (Mailbox<TestHTTPResponse>, pthread_t?) {
        let answer = Mailbox<TestHTTPResponse>()
        let thread = startThread(named: "test-client") { [client = HandedOver(live.client())] in
            if let response = try? client.value.send(
                method: "POST", path: "/actions",
                headers: [("Content-Type", "application/json"), ("Idempotency-Key", key)],
                body: Array(Self.increase.utf8)
            ) {
                answer.post(response)
            }
        }
        #expect(thread != nil)
        return (answer, thread)
    }

    @Test(arguments: [true, false])
    func aRetryGetsTheKeptAnswerAndDispatchesNothing(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let first = try post(live, key: "order-17")
        #expect(first.status == 200)
        #expect(first.bodyString == #"{"version":1}"#)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        _ = try live.post(Self.increase)  // version 2, no key
        let retry = try post(live, key: "order-17")
        #expect(retry.status == 200)
        #expect(retry.bodyString == #"{"version":1}"#, "the kept answer, not the current version")
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(retry.headers["Content-Type"] == "application/json")
        #expect(live.store.version == 2, "the retry dispatched nothing")
        #expect(try post(live, key: "order-18").bodyString == #"{"version":3}"#, "another key is another request")
    }

    @Test(arguments: [true, false])
    func theSameKeyWithAnotherBodyIs422AndNothingApplies(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        #expect(try post(live, key: "k").status == 200)
        let other = try post(live, key: "k", body: #"{"type":"decrease"}"#)
        #expect(other.status == 422)
        #expect(other.problem?.type == "urn:remvvm:problem:idempotency-key-reused")
        #expect(live.store.version == 1)
    }

    @Test(arguments: ["", String(repeating: "k", count: 256), "two words", "caf\u{e9}", "tab\there"])
    func aKeyThatIsNotVisibleASCIIIs400(key: String) throws {
        let live = try LiveServer()
        let response = try post(live, key: key)
        #expect(response.status == 400)
        #expect(response.problem?.type == "urn:remvvm:problem:invalid-idempotency-key")
        #expect(live.store.version == 0)
    }

    @Test func theLongestAndOddestValidKeysWork() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        for key in [String(repeating: "k", count: 255), "!", "~{}\"'<>"] {
            #expect(try post(live, key: key).status == 200, "\(key)")
            #expect(try post(live, key: key).headers["Idempotent-Replayed"] == "true", "\(key)")
        }
        #expect(live.store.version == 3)
    }

    @Test func aRetryWhileTheFirstIsInFlightIs409() throws {
        let (live, storage) = try LiveServer.withCommitsHeld()
        let (firstAnswer, started) = postOnAThread(live, key: "slow")
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)), "the first request waits for its commit")
        let retry = try post(live, key: "slow")
        #expect(retry.status == 409)
        #expect(retry.problem?.type == "urn:remvvm:problem:idempotency-key-in-flight")
        #expect(retry.headers["Retry-After"] == "1")
        storage.releaseCommits()
        #expect(firstAnswer.next(timeout: .seconds(5))?.bodyString == #"{"version":1}"#)
        let later = try post(live, key: "slow")
        #expect(later.headers["Idempotent-Replayed"] == "true")
        #expect(later.bodyString == #"{"version":1}"#)
        #expect(live.store.version == 1)
        if let started { pthread_join(started, nil) }
    }

    @Test func theKeyIsCommittedWithItsActions() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(journal: storage)
        #expect(try post(live, key: "batch", body: #"[{"type":"increase"},{"type":"increase"},{"type":"decrease"}]"#).status == 200)
        #expect(storage.commits.contains(.init(versions: [1, 2, 3], answerKeys: ["batch"])))
        #expect(storage.keptAnswers["batch"]?.body == Array(#"{"version":3}"#.utf8))
    }

    @Test func aKeptAnswerSurvivesARestart() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-idempotent")
        do {
            let live = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
            #expect(try post(live, key: "before-restart").bodyString == #"{"version":1}"#)
            live.server.shutdown()
        }
        let restarted = try LiveServer(journal: try SQLiteJournalStorage(directory: directory.path, sync: .full))
        let retry = try post(restarted, key: "before-restart")
        #expect(retry.bodyString == #"{"version":1}"#)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(restarted.store.version == 1, "nothing dispatched again after the restart")
        #expect(try post(restarted, key: "before-restart", body: #"{"type":"decrease"}"#).status == 422)
    }

    /// The case idempotency exists for: the commit fails, the client gets 503 and retries. The
    /// actions are still queued in the journal, so the retry must not dispatch them again.
    @Test func aRetryAfterAFailedCommitNeverAppliesTheActionsTwice() throws {
        let (live, storage) = try LiveServer.withCommitsHeld()
        let (firstAnswer, started) = postOnAThread(live, key: "pay-once")
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full"))
        storage.releaseCommits()
        #expect(firstAnswer.next(timeout: .seconds(5))?.status == 503, "not durable: not acknowledged")
        let duringTheFault = try post(live, key: "pay-once")
        #expect(duringTheFault.status == 409 || duringTheFault.status == 503, "never processed again while queued")
        storage.failAppends(with: nil)  // the disk recovers; the journal retries the queued commit
        #expect(storage.wait(timeout: .seconds(10)) { $0.keptAnswers["pay-once"] != nil })
        // The storage holds the answer a moment before the commit's listeners keep it for the
        // key: until then the key is in flight (409, nothing dispatched; seen under load).
        var retry = try post(live, key: "pay-once")
        #expect(waitUntil(timeout: .seconds(10)) {
            guard retry.status == 409 || retry.status == 503 else { return true }
            retry = (try? post(live, key: "pay-once")) ?? retry
            return false
        }, "last answer: \(retry.status) \(retry.bodyString)")
        #expect(retry.status == 200)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(retry.bodyString == #"{"version":1}"#)
        #expect(storage.committedRecords.map(\.version) == [1], "the action was applied and journaled once")
        #expect(live.store.version == 1)
        if let started { pthread_join(started, nil) }
    }

    @Test func aFailedPreconditionIsNotKeptSoTheRetryIsProcessed() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        _ = try live.post(Self.increase)
        let stale = try post(live, key: "cas", headers: [("If-Match", live.etag(0))])
        #expect(stale.status == 412)
        let fresh = try post(live, key: "cas", headers: [("If-Match", live.etag(1))])
        #expect(fresh.status == 200)
        #expect(fresh.headers["Idempotent-Replayed"] == nil)
        #expect(fresh.bodyString == #"{"version":2}"#)
    }

    /// Answers given before the store saw the actions are not kept (docs/http-api.md, "Conditional
    /// and idempotent dispatch"): bad JSON, a `Content-Type` that is not JSON and an unknown action
    /// type leave the key unused, so the valid request with that key is processed, not `422`
    /// `idempotency-key-reused`.
    @Test(arguments: [true, false])
    func refusalsBeforeTheStoreAreNotKeptSoTheValidRequestWithTheKeyIsProcessed(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let refusals: [(key: String, body: String, contentType: String, status: Int)] = [
            ("bad-json", "{", "application/json", 400),
            ("not-json", Self.increase, "text/plain", 415),
            ("unknown-type", #"{"type":"nope"}"#, "application/json", 422),
        ]
        for (index, refusal) in refusals.enumerated() {
            let refused = try live.send(
                method: "POST", path: "/actions",
                headers: [("Content-Type", refusal.contentType), ("Idempotency-Key", refusal.key)],
                body: Array(refusal.body.utf8)
            )
            #expect(refused.status == refusal.status, "\(refusal.key): \(refused.bodyString)")
            #expect(refused.headers["Idempotent-Replayed"] == nil, "\(refusal.key)")
            let valid = try post(live, key: refusal.key)
            #expect(valid.status == 200, "\(refusal.key): \(valid.bodyString)")
            #expect(valid.bodyString == #"{"version":\#(index + 1)}"#, "\(refusal.key): processed, not the refusal kept")
            #expect(valid.headers["Idempotent-Replayed"] == nil, "\(refusal.key)")
            #expect(valid.problem?.type != "urn:remvvm:problem:idempotency-key-reused", "\(refusal.key)")
        }
        #expect(live.store.version == 3)
    }

    @Test(arguments: [true, false])
    func rejectedAndAcceptedAnswersAreKept(journaled: Bool) throws {
        let rejecting = try LiveServer(middleware: [RejectSecondLogin()], journal: journaled ? MemoryJournalStorage() : nil)
        let login = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#
        #expect(try rejecting.post(login).status == 200)
        let rejected = try post(rejecting, key: "second-login", body: login)
        #expect(rejected.status == 422)
        let replayed = try post(rejecting, key: "second-login", body: login)
        #expect(replayed.status == 422)
        #expect(replayed.headers["Idempotent-Replayed"] == "true")
        #expect(replayed.headers["Content-Type"] == "application/problem+json")
        #expect(replayed.body == rejected.body)

        let holding = try LiveServer(middleware: [HoldingMiddleware()], journal: journaled ? MemoryJournalStorage() : nil)
        #expect(try post(holding, key: "held").status == 202)
        let again = try post(holding, key: "held")
        #expect(again.status == 202)
        #expect(again.headers["Idempotent-Replayed"] == "true")
    }

    /// A batch rejected after some of its actions were applied says so only once they are durable.
    @Test func aPartlyAppliedBatchIsAnsweredOnlyOnceItsAppliedActionsAreDurable() throws {
        let storage = MemoryJournalStorage()
        let live = try LiveServer(middleware: [RejectSecondLogin()], journal: storage)
        let login = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#
        storage.holdCommits()
        let answer = Mailbox<TestHTTPResponse>()
        let thread = startThread(named: "test-client") { [client = HandedOver(live.client())] in
            if let response = try? client.value.send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")],
                body: Array("[{\"type\":\"increase\"},\(login),\(login)]".utf8)
            ) {
                answer.post(response)
            }
        }
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        // A bounded negative check: while the commit is held, no answer.
        #expect(answer.next(timeout: .milliseconds(300)) == nil, "the 422 waits for versions 1 and 2")
        storage.releaseCommits()
        let response = try #require(answer.next(timeout: .seconds(5)))
        #expect(response.status == 422)
        #expect(response.problem?.index == 2)
        #expect(storage.committedRecords.map(\.version) == [1, 2])
        if let thread { pthread_join(thread, nil) }
    }

    @Test func concurrentRetriesOfOneKeyApplyItOnce() throws {
        let live = try LiveServer(journal: MemoryJournalStorage())
        let statuses = Mailbox<Int>()
        let clients = (0..<8).map { _ in HandedOver(live.client()) }
        _ = runOnThreads(8) { index in
            for _ in 0..<20 {
                if let response = try? clients[index].value.send(
                    method: "POST", path: "/actions",
                    headers: [("Content-Type", "application/json"), ("Idempotency-Key", "shared")],
                    body: Array(Self.increase.utf8)
                ) {
                    statuses.post(response.status)
                }
            }
        }
        let all = statuses.snapshot
        #expect(all.count == 160)
        #expect(Set(all).isSubset(of: [200, 409]))
        #expect(live.store.version == 1, "one of 160 concurrent requests with the key was applied")
    }
}
