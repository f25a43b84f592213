import Crypto
import Journal
@testable import ReMVVMServer
import Logging
import Testing

/// ``IdempotencyKeys`` on its own: expiry after the retention, the memory limit, claims.
@Suite struct IdempotencyKeysTests {
    private let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    private func key(_ value: String, body: String = "{}") -> IdempotencyKey {
        IdempotencyKey(header: value, method: "POST", path: "/actions", body: Array(body.utf8))!
    }

    /// Answers in memory, of one store's scope.
    private func memory(limit: Int) -> IdempotencyKeys.Backing {
        let answers = InMemoryAnswers(limit: limit)
        return .memory(answers, scope: answers.makeScope())
    }

    private func keep(_ keys: IdempotencyKeys, _ key: IdempotencyKey, at time: Int64) {
        keys.keep(KeptAnswer(key: key.value, fingerprint: key.fingerprint, status: 200, body: [], time: time)) { _ in }
    }

    @Test(arguments: [true, false])
    func anAnswerIsReplayedWithinTheRetentionAndForgottenAfter(journaled: Bool) {
        let storage = MemoryJournalStorage()
        let keys = IdempotencyKeys(backing: journaled ? .journal(storage) : memory(limit: 10), retention: .seconds(60), logger: logger)
        let order = key("order")
        guard case .fresh = keys.claim(order, now: 1_000) else { Issue.record("a new key is fresh"); return }
        if journaled {
            // The journal's commit is what makes an answer visible.
            try? storage.append([], answers: [KeptAnswer(key: "order", fingerprint: order.fingerprint, status: 200, body: [], time: 1_000)])
            keys.journalCommitted([KeptAnswer(key: "order", fingerprint: order.fingerprint, status: 200, body: [], time: 1_000)], .success(()))
        } else {
            keep(keys, order, at: 1_000)
        }
        guard case .replay = keys.claim(order, now: 61_000) else { Issue.record("replayed at the end of the retention"); return }
        guard case .reusedForAnotherRequest = keys.claim(key("order", body: "[]"), now: 61_000) else {
            Issue.record("another body is refused"); return
        }
        guard case .fresh = keys.claim(order, now: 61_001) else { Issue.record("expired: the key may be used again"); return }
    }

    @Test func aClaimedKeyIsInFlightUntilReleasedOrKept() {
        let keys = IdempotencyKeys(backing: memory(limit: 10), retention: .seconds(60), logger: logger)
        let order = key("order")
        guard case .fresh = keys.claim(order, now: 0) else { Issue.record("fresh"); return }
        guard case .inFlight = keys.claim(order, now: 0) else { Issue.record("in flight"); return }
        keys.release(order)
        guard case .fresh = keys.claim(order, now: 0) else { Issue.record("fresh after release"); return }
    }

    @Test func theMemoryLimitForgetsTheOldestAnswersFirst() {
        let keys = IdempotencyKeys(backing: memory(limit: 2), retention: .seconds(60), logger: logger)
        for name in ["a", "b", "c"] {
            _ = keys.claim(key(name), now: 0)
            keep(keys, key(name), at: 0)
        }
        guard case .fresh = keys.claim(key("a"), now: 0) else { Issue.record("a was forgotten"); return }
        guard case .replay = keys.claim(key("c"), now: 0) else { Issue.record("c is kept"); return }
    }

    @Test func storesInMemoryShareTheLimitTheOldestAnswerOfAnyGoingFirst() {
        let answers = InMemoryAnswers(limit: 3)
        let room = IdempotencyKeys(backing: .memory(answers, scope: answers.makeScope()), retention: .seconds(60), logger: logger)
        let hall = IdempotencyKeys(backing: .memory(answers, scope: answers.makeScope()), retention: .seconds(60), logger: logger)
        for (keys, name, time) in [(room, "a", 1), (hall, "a", 2), (hall, "b", 3), (room, "c", 4)] as [(IdempotencyKeys, String, Int64)] {
            guard case .fresh = keys.claim(key(name), now: time) else { Issue.record("\(name) fresh"); return }
            keep(keys, key(name), at: time)
        }
        #expect(answers.count == 3, "four kept, the limit is for all stores together")
        guard case .fresh = room.claim(key("a"), now: 5) else { Issue.record("room's a, the oldest, went first"); return }
        guard case .replay = hall.claim(key("a"), now: 5) else { Issue.record("hall's a is its own and kept"); return }
        guard case .replay = room.claim(key("c"), now: 5) else { Issue.record("room's c is kept"); return }
    }

    @Test func aStoreMadeAgainNeverMeetsTheAnswersOfTheOneBefore() {
        let answers = InMemoryAnswers(limit: 10)
        let before = IdempotencyKeys(backing: .memory(answers, scope: answers.makeScope()), retention: .seconds(60), logger: logger)
        _ = before.claim(key("order"), now: 0)
        keep(before, key("order"), at: 0)
        let again = IdempotencyKeys(backing: .memory(answers, scope: answers.makeScope()), retention: .seconds(60), logger: logger)
        guard case .fresh = again.claim(key("order"), now: 1) else { Issue.record("a new scope starts empty"); return }
    }

    @Test func expiredAnswersAreRemovedFromTheJournal() throws {
        let storage = MemoryJournalStorage()
        try storage.append([], answers: [KeptAnswer(key: "old", fingerprint: [], status: 200, body: [], time: 0)])
        let keys = IdempotencyKeys(backing: .journal(storage), retention: .seconds(60), logger: logger)
        _ = keys.claim(key("new"), now: 120_000)
        #expect(storage.keptAnswers["old"] == nil, "pruned on the first claim after the retention")
    }

    @Test func theFingerprintCoversThePathAndTheBody() {
        #expect(key("k").fingerprint == key("k").fingerprint)
        #expect(key("k").fingerprint != key("k", body: "{ }").fingerprint)
        #expect(IdempotencyKey(header: "k", method: "POST", path: "/other", body: Array("{}".utf8))?.fingerprint != key("k").fingerprint)
        #expect(key("k").fingerprint.count == 32)
    }

    /// Kept answers outlive builds (in the journal): the fingerprint is SHA-256 of `METHOD path\n`
    /// and the body, byte for byte as every build computed it.
    @Test func theFingerprintIsTheHashOfTheRequestLineAndTheBody() {
        let body = #"{"type":"login","payload":{"firstName":"Åda"}}"#
        let expected = Array(SHA256.hash(data: Array("POST /stores/ø/actions\n\(body)".utf8)))
        #expect(IdempotencyKey(header: "k", method: "POST", path: "/stores/ø/actions", body: Array(body.utf8))?.fingerprint == expected)
    }
}
