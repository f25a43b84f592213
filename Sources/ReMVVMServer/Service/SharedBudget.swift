import ConcurrencyKit
import Synchronization

/// A budget that many stores' holdings share: the bytes of the resume rings (`replayRingBytes`),
/// the actions of the action logs kept in memory (`actionLogMemoryLimit`). A holder keeps at most
/// its share — the budget over the holders keeping something now (a store that never changed
/// keeps nothing and takes no share). One server-wide budget, so that a server with thousands of
/// busy stores holds the same memory for these as a server with one, not thousands of times it.
///
/// Shares shrink as holders join. Each holder trims itself to its share whenever it grows; one
/// that does not grow would keep what it had, so whenever the count of holders has doubled since
/// they were last all trimmed, every holder is trimmed again (outside every lock but its own).
/// Between two such passes a holder keeps at most the budget over the fewest holders since the
/// last pass, and there are at most twice that many holders: together they stay under twice the
/// budget. A pass takes one lock per holder and comes after as many joins as there were holders,
/// so each join costs a constant amount of trimming.
final class SharedBudget: Sendable {
    /// What all holders may keep together, in the holders' unit (bytes, actions).
    let total: Int
    /// The holders keeping something now: the denominator of every share.
    private let holderCount = Atomic<Int>(0)
    private let holders = Lock(Holders())

    private struct Holders {
        /// How to trim each holder keeping something to its share.
        var trims: [ObjectIdentifier: @Sendable () -> Void] = [:]
        /// The fewest holders since every holder was last trimmed (the count at that pass, then
        /// lowered by departures): a pass is due once the holders are more than twice as many.
        var fewestSincePass = 1
    }

    /// A budget of `total` for all the holders together.
    init(total: Int) {
        self.total = max(0, total)
    }

    /// The holders keeping something now.
    var count: Int {
        holderCount.load(ordering: .relaxed)
    }

    /// What one holder may keep now; `joining` when the asking holder keeps nothing yet (it counts
    /// itself in).
    func share(joining: Bool) -> Int {
        total / max(1, count + (joining ? 1 : 0))
    }

    /// The holder `id` keeps something from now on; `trim` cuts it to its share (taking the
    /// holder's own lock: the caller must not hold it). Trims every holder when their count has
    /// doubled since the last time.
    func join(_ id: ObjectIdentifier, trim: @escaping @Sendable () -> Void) {
        let pass = holders.withLock { holders -> [@Sendable () -> Void] in
            guard holders.trims.updateValue(trim, forKey: id) == nil else { return [] }
            holderCount.store(holders.trims.count, ordering: .relaxed)
            guard holders.trims.count > 2 * holders.fewestSincePass else { return [] }
            holders.fewestSincePass = holders.trims.count
            return Array(holders.trims.values)
        }
        for trim in pass {
            trim()
        }
    }

    /// The holder `id` keeps nothing any more (its store stopped); does nothing if it had not
    /// joined.
    func leave(_ id: ObjectIdentifier) {
        holders.withLock { holders in
            guard holders.trims.removeValue(forKey: id) != nil else { return }
            holderCount.store(holders.trims.count, ordering: .relaxed)
            holders.fewestSincePass = max(1, min(holders.fewestSincePass, holders.trims.count))
        }
    }
}
