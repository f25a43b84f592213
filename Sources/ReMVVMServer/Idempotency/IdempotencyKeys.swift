import ConcurrencyKit
import Journal
import Logging

/// The keys of `Idempotency-Key` requests: which are being processed now, and the answers kept
/// for earlier ones — in the journal (same commit as the actions, so they survive a restart), or
/// in memory when the server runs without one.
///
/// A key is *in flight* from the moment a request claims it until its answer is durable (or the
/// request ends without keeping one); a retry meanwhile gets 409. A key whose commit failed stays
/// in flight until a later commit makes it durable: the actions are still queued, so processing
/// the retry would apply them twice.
final class IdempotencyKeys: Sendable {
    /// What a request carrying a key may do.
    enum Claim: Sendable {
        /// The key is new (or expired): process the request, then ``keep(_:whenDurable:)`` its
        /// answer or ``release(_:)`` the key.
        case fresh
        /// The same request was answered before: send this answer again, dispatch nothing.
        case replay(KeptAnswer)
        /// The key was used for a different request.
        case reusedForAnotherRequest
        /// A request with this key is still being processed.
        case inFlight
        /// The journal cannot be read: nothing can be decided.
        case unavailable(JournalError)
    }

    /// Where kept answers live.
    enum Backing: Sendable {
        /// In the journal's storage, written by its commits.
        case journal(any JournalStorage)
        /// In memory, with every store's (at most `idempotencyMemoryLimit` together, the oldest
        /// going first), under this store's scope.
        case memory(InMemoryAnswers, scope: UInt64)
    }

    private struct State {
        var inFlight: [String: [@Sendable (Result<Void, JournalError>) -> Void]] = [:]
        var lastPrune: Int64 = 0
        var pruning = false
    }

    private let backing: Backing
    private let retentionMilliseconds: Int64
    private let logger: Logger
    private let state = Lock(State())

    /// How often expired answers are removed from the journal.
    private static let pruneIntervalMilliseconds: Int64 = 60_000

    /// - Parameters:
    ///   - backing: where answers are kept.
    ///   - retention: how long a kept answer is replayed; after that the key may be used again.
    init(backing: Backing, retention: Duration, logger: Logger) {
        self.backing = backing
        self.logger = logger
        retentionMilliseconds = max(0, retention.wholeMilliseconds)
    }

    /// Claims `key` for a request received at `now` (milliseconds since 1970).
    func claim(_ key: IdempotencyKey, now: Int64) -> Claim {
        if let decided = claimInMemory(key, now: now) { return decided }
        guard case .journal(let storage) = backing else { return .fresh }
        pruneIfDue(storage, now: now)
        let found: Result<KeptAnswer?, JournalError>
        do throws(JournalError) {
            found = .success(try storage.answer(forKey: key.value))
        } catch {
            found = .failure(error)
        }
        return decide(key, found: found, in: storage, oldest: now - retentionMilliseconds)
    }

    /// ``claim(_:now:)`` without blocking the caller on the storage: `completion` gets the claim
    /// at once when memory decides it, else once the storage looked the key up (the shared log
    /// looks up the keys of concurrent requests together, on a thread of its own).
    func claim(_ key: IdempotencyKey, now: Int64, completion: @escaping @Sendable (Claim) -> Void) {
        if let decided = claimInMemory(key, now: now) { return completion(decided) }
        guard case .journal(let storage) = backing else { return completion(.fresh) }
        let oldest = now - retentionMilliseconds
        storage.lookUpAnswer(forKey: key.value) { [self] found in
            completion(decide(key, found: found, in: storage, oldest: oldest))
            // Here rather than on the caller's thread, which serves HTTP: removing a minute of
            // expired answers may take a while.
            pruneIfDue(storage, now: now)
        }
    }

    /// The claim decided by memory alone (in flight; a remembered answer without a journal; a
    /// fresh key without a journal), or nil when the journal must be asked (the key is then in
    /// flight, claimed by this request).
    private func claimInMemory(_ key: IdempotencyKey, now: Int64) -> Claim? {
        let oldest = now - retentionMilliseconds
        return state.withLock { state -> Claim? in
            if state.inFlight[key.value] != nil { return .inFlight }
            // Under this store's lock: a claim never falls between an answer's keeping and its
            // key's release (``keep(_:whenDurable:)`` keeps it first).
            if case .memory(let answers, let scope) = backing, let kept = answers.answer(forKey: key.value, in: scope), kept.time >= oldest {
                return kept.fingerprint == key.fingerprint ? .replay(kept) : .reusedForAnotherRequest
            }
            state.inFlight[key.value] = []
            if case .memory = backing { return .fresh }
            return nil
        }
    }

    /// The claim of `key`, in flight, once the journal said what it keeps for it (`found`).
    private func decide(
        _ key: IdempotencyKey, found: Result<KeptAnswer?, JournalError>, in storage: any JournalStorage, oldest: Int64
    ) -> Claim {
        do throws(JournalError) {
            if let kept = try found.get() {
                if kept.time >= oldest {
                    release(key)
                    return kept.fingerprint == key.fingerprint ? .replay(kept) : .reusedForAnotherRequest
                }
                // Expired: a new request. A storage that refuses a kept key (the shared log)
                // forgets it first.
                try storage.removeAnswer(forKey: key.value, keptBefore: oldest)
            }
            return .fresh
        } catch {
            release(key)
            return .unavailable(error)
        }
    }

    /// Ends a claim without keeping an answer (the request changed nothing: a retry is processed
    /// anew).
    func release(_ key: IdempotencyKey) {
        state.withLock { _ = $0.inFlight.removeValue(forKey: key.value) }
    }

    /// Keeps `answer` for its claimed key. In memory at once; with a journal, `completion` runs
    /// when the commit holding the answer (and its request's actions) succeeds or fails — the
    /// caller hands the answer to ``GroupCommitJournal/endGroup(keeping:)`` right after this.
    func keep(_ answer: KeptAnswer, whenDurable completion: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        switch backing {
        case .memory(let answers, let scope):
            state.withLock { state in
                answers.keep(answer, in: scope, expiredBefore: answer.time - retentionMilliseconds)
                state.inFlight.removeValue(forKey: answer.key)
            }
            completion(.success(()))
        case .journal:
            state.withLock { $0.inFlight[answer.key, default: []].append(completion) }
        }
    }

    /// Told by the journal that a commit holding `answers` succeeded or failed.
    func journalCommitted(_ answers: [KeptAnswer], _ result: Result<Void, JournalError>) {
        let completions = state.withLock { state -> [@Sendable (Result<Void, JournalError>) -> Void] in
            var completions: [@Sendable (Result<Void, JournalError>) -> Void] = []
            for answer in answers {
                switch result {
                case .success:
                    // Durable now: later claims find it in the journal.
                    completions += state.inFlight.removeValue(forKey: answer.key) ?? []
                case .failure:
                    // Still queued: the key stays in flight until a later commit succeeds.
                    completions += state.inFlight[answer.key] ?? []
                    if state.inFlight[answer.key] != nil { state.inFlight[answer.key] = [] }
                }
            }
            return completions
        }
        for completion in completions {
            completion(result)
        }
    }

    /// Removes expired answers from the journal, at most once a minute, by one caller at a time.
    private func pruneIfDue(_ storage: any JournalStorage, now: Int64) {
        let due = state.withLock { state -> Bool in
            guard !state.pruning, now - state.lastPrune >= Self.pruneIntervalMilliseconds else { return false }
            state.pruning = true
            state.lastPrune = now
            return true
        }
        guard due else { return }
        do {
            try storage.removeAnswers(keptBefore: now - retentionMilliseconds)
        } catch {
            logger.error("could not remove expired idempotency answers: \(error)")
        }
        state.withLock { $0.pruning = false }
    }
}
