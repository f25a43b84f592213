import ConcurrencyKit
import DequeModule
import Journal
import Synchronization

/// The answers to `Idempotency-Key` requests that a server without a journal keeps in memory, for
/// all its stores together: at most `limit` of them (`idempotencyMemoryLimit`), the oldest going
/// first whatever their store, and none kept past the retention.
///
/// One bound for the server, as the resume rings have one budget: a bound per store multiplied
/// with the count of stores — an answer takes about 470 bytes, so 100,000 of them about 47 MB,
/// for each busy store. A store's answers are told apart by its *scope*, taken when the store is
/// made: a store deleted and made again gets a new one and never meets the old one's answers
/// (which leave with the oldest).
final class InMemoryAnswers: Sendable {
    /// A kept answer's place: its store's scope and its key.
    private struct Place: Hashable {
        let scope: UInt64
        let key: String
    }

    private struct State {
        var answers: [Place: KeptAnswer] = [:]
        /// Every place once, oldest kept first (an answer kept again for its key stays where it was).
        var order: Deque<Place> = []
    }

    /// The most answers kept at once.
    let limit: Int
    private let state = Lock(State())
    private let scopes = Atomic<UInt64>(0)

    /// At most `limit` answers kept (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A scope for one store's answers, never handed out before.
    func makeScope() -> UInt64 {
        scopes.add(1, ordering: .relaxed).newValue
    }

    /// How many answers are kept now.
    var count: Int {
        state.withLock { $0.answers.count }
    }

    /// The answer kept for `key` in `scope`, if any (an expired one too, until it is removed).
    func answer(forKey key: String, in scope: UInt64) -> KeptAnswer? {
        state.withLock { $0.answers[Place(scope: scope, key: key)] }
    }

    /// Keeps `answer` in `scope`, then removes the oldest answers past the limit and those kept
    /// before `expiredBefore` (milliseconds since 1970).
    func keep(_ answer: KeptAnswer, in scope: UInt64, expiredBefore: Int64) {
        let place = Place(scope: scope, key: answer.key)
        state.withLock { state in
            if state.answers.updateValue(answer, forKey: place) == nil {
                state.order.append(place)
            }
            while state.order.count > limit, let oldest = state.order.popFirst() {
                state.answers.removeValue(forKey: oldest)
            }
            while let first = state.order.first, let kept = state.answers[first], kept.time < expiredBefore {
                state.order.removeFirst()
                state.answers.removeValue(forKey: first)
            }
        }
    }
}
