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

    private func keep(_ keys: IdempotencyKeys, _ key: IdempotencyKey, at time: Int64) {
        keys.keep(KeptAnswer(key: key.value, fingerprint: key.fingerprint, status: 200, body: [], time: time)) { _ in }
    }

    @Test(arguments: [true, false])
    func anAnswerIsReplayedWithinTheRetentionAndForgottenAfter(journaled: Bool) {
        let storage = MemoryJournalStorage()
        let keys = IdempotencyKeys(backing: journaled ? .journal(storage) : .memory(limit: 10), retention: .seconds(60), logger: logger)
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
        let keys = IdempotencyKeys(backing: .memory(limit: 10), retention: .seconds(60), logger: logger)
        let order = key("order")
        guard case .fresh = keys.claim(order, now: 0) else { Issue.record("fresh"); return }
        guard case .inFlight = keys.claim(order, now: 0) else { Issue.record("in flight"); return }
        keys.release(order)
        guard case .fresh = keys.claim(order, now: 0) else { Issue.record("fresh after release"); return }
    }

    @Test func theMemoryLimitForgetsTheOldestAnswersFirst() {
        let keys = IdempotencyKeys(backing: .memory(limit: 2), retention: .seconds(60), logger: logger)
        for name in ["a", "b", "c"] {
            _ = keys.claim(key(name), now: 0)
            keep(keys, key(name), at: 0)
        }
        guard case .fresh = keys.claim(key("a"), now: 0) else { Issue.record("a was forgotten"); return }
        guard case .replay = keys.claim(key("c"), now: 0) else { Issue.record("c is kept"); return }
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
}
