import ConcurrencyKit
import Synchronization

/// The memory every store's resume ring shares (`replayRingBytes`): a ring keeps at most
/// `replayRingEvents` versions and its share of the bytes — the budget over the rings that keep
/// versions now (a store that never changed keeps none and takes no share). One server-wide
/// budget, so that a server with thousands of busy stores holds the same memory for resumes as a
/// server with one, not thousands of times it.
///
/// Shares shrink as rings join. Each ring trims itself to its share at each of its versions; one
/// that gets no new version would keep what it had, so whenever the count of rings has doubled
/// since they were last all trimmed, every ring is trimmed again (outside every lock but its own).
/// Between two such passes a ring holds at most the budget over the fewest rings since the last
/// pass, and there are at most twice that many rings: together they stay under twice the budget.
/// A pass takes one lock per ring and comes after as many joins as there were rings, so each join
/// costs a constant amount of trimming.
final class ReplayRingBudget: Sendable {
    /// The bytes all rings may take together, estimated from the size of their recent events.
    let totalBytes: Int
    /// The rings keeping versions now: the denominator of every share.
    private let ringCount = Atomic<Int>(0)
    private let rings = Lock(Rings())

    private struct Rings {
        /// How to trim each ring keeping versions to its share.
        var trims: [ObjectIdentifier: @Sendable () -> Void] = [:]
        /// The fewest rings since every ring was last trimmed (the count at that pass, then
        /// lowered by departures): a pass is due once the rings are more than twice as many.
        var fewestSincePass = 1
    }

    /// A budget of `totalBytes` for all the rings together.
    init(totalBytes: Int) {
        self.totalBytes = max(0, totalBytes)
    }

    /// The rings keeping versions now.
    var count: Int {
        ringCount.load(ordering: .relaxed)
    }

    /// The bytes one ring may take now; `joining` when the asking ring keeps no version yet (it
    /// counts itself in).
    func shareBytes(joining: Bool) -> Int {
        totalBytes / max(1, count + (joining ? 1 : 0))
    }

    /// The ring `id` keeps versions from now on; `trim` cuts it to its share (taking the ring's own
    /// lock: the caller must not hold it). Trims every ring when their count has doubled since
    /// the last time.
    func join(_ id: ObjectIdentifier, trim: @escaping @Sendable () -> Void) {
        let pass = rings.withLock { rings -> [@Sendable () -> Void] in
            guard rings.trims.updateValue(trim, forKey: id) == nil else { return [] }
            ringCount.store(rings.trims.count, ordering: .relaxed)
            guard rings.trims.count > 2 * rings.fewestSincePass else { return [] }
            rings.fewestSincePass = rings.trims.count
            return Array(rings.trims.values)
        }
        for trim in pass {
            trim()
        }
    }

    /// The ring `id` keeps nothing any more (its store stopped); does nothing if it had not joined.
    func leave(_ id: ObjectIdentifier) {
        rings.withLock { rings in
            guard rings.trims.removeValue(forKey: id) != nil else { return }
            ringCount.store(rings.trims.count, ordering: .relaxed)
            rings.fewestSincePass = max(1, min(rings.fewestSincePass, rings.trims.count))
        }
    }
}
