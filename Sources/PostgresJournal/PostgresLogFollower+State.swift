import Journal
import DequeModule

/// One store a ``PostgresLogFollower`` follows; read and changed only under the follower's lock.
///
/// A class: the follower looks a store up several times per round (offers, the round's work,
/// the record of its pages, the doorbell), and with 1,000 stores a round touches a store per
/// action; as a struct each lookup copied its three closures, its deque and its strings
/// (`FollowedStoreVwcp`, `docs/benchmarks.md` 2026-11-29), where a reference is one retain.
final class FollowedStore {
    /// The last version applied.
    var applied: UInt64
    /// The newest version known to be in the log.
    var knownHead: UInt64
    /// The version to read up to (`.max`: whatever is there); nil once caught up.
    var readUpTo: UInt64? = .max
    /// The incarnation `verify` accepted, once it did (read again at every reconnect).
    var verified: String?
    /// The incarnation first accepted, kept across reconnects: the store this following applies.
    /// Another one in the head row stops the store; rows a doorbell rings of another one are not
    /// offered (``PostgresLogDoorbell/incarnations``); appends state it
    /// (``PostgresLogFollower/incarnation(of:)``).
    var incarnation: String?
    /// Whether every entry up to the head read last was applied since the last (re)connect.
    var caughtUp = false
    /// Why following stopped for good (an entry that could not be applied, the store deleted).
    var stopReason: String?
    /// Entries committed by this replica, handed over by ``PostgresLogFollower/offer(_:entries:)``,
    /// oldest first.
    var offered: Deque<LogEntry> = []
    /// Tells this following apart from a later one of the same store (unfollowed and followed
    /// again while a page was being applied).
    var generation: UInt64 = 0
    /// The status last told to ``onStatus``.
    var reported: PostgresLogFollower.Status?
    let apply: @Sendable ([LogEntry]) throws -> Void
    let verify: @Sendable (_ incarnation: String, _ head: UInt64) throws -> Void
    let onStatus: @Sendable (PostgresLogFollower.Status) -> Void

    init(
        applied: UInt64, apply: @escaping @Sendable ([LogEntry]) throws -> Void,
        verify: @escaping @Sendable (String, UInt64) throws -> Void,
        onStatus: @escaping @Sendable (PostgresLogFollower.Status) -> Void
    ) {
        self.applied = applied
        knownHead = applied
        self.apply = apply
        self.verify = verify
        self.onStatus = onStatus
    }

    /// Whether there is something to read or apply (once the store's head row was checked:
    /// nothing is applied before `verify` accepted the store).
    var isBehind: Bool {
        stopReason == nil && verified != nil && (!offered.isEmpty || readUpTo.map { applied < $0 } ?? false)
    }
}

extension FollowedStore {
    /// Takes in a head a doorbell announced; true when it is past the applied version (there is
    /// something to read).
    func announce(_ head: UInt64) -> Bool {
        guard head > applied else { return false }
        knownHead = max(knownHead, head)
        readUpTo = max(readUpTo ?? 0, head)
        return true
    }

    /// Keeps `entries` (committed, in version order up to `last`: this replica's appends, or the
    /// rows doorbells carried — with a gap where an append rang only its heads) to apply without
    /// reading them back, the newest `limit` at most. The offers stay in version order, each
    /// version once: the doorbell brings this replica's own rows again, and another replica's rows
    /// may arrive after this replica's later ones.
    func offer(_ entries: [LogEntry], last: UInt64, keeping limit: Int) {
        knownHead = max(knownHead, last)
        if let newest = offered.last?.record.version, let first = entries.first?.record.version, first <= newest {
            offered = Self.merged(offered, entries.filter { $0.record.version > applied })
        } else {
            offered.append(contentsOf: entries)
        }
        if offered.count > limit {
            offered.removeFirst(offered.count - limit)
        }
    }
}

extension FollowedStore {
    /// `kept` and `added` (each in version order) in version order, a version found in both once.
    static func merged(_ kept: Deque<LogEntry>, _ added: [LogEntry]) -> Deque<LogEntry> {
        var result: Deque<LogEntry> = []
        result.reserveCapacity(kept.count + added.count)
        var keptIndex = kept.startIndex, addedIndex = added.startIndex
        while keptIndex < kept.endIndex || addedIndex < added.endIndex {
            let next: LogEntry
            if addedIndex == added.endIndex
                || (keptIndex < kept.endIndex && kept[keptIndex].record.version <= added[addedIndex].record.version) {
                next = kept[keptIndex]
                keptIndex += 1
            } else {
                next = added[addedIndex]
                addedIndex += 1
            }
            if result.last?.record.version != next.record.version { result.append(next) }
        }
        return result
    }
}

/// A caller of ``PostgresLogFollower/whenApplied(_:of:timeout:_:)`` still waiting.
struct FollowerWaiter {
    let store: StoreID
    let version: UInt64
    let deadline: ContinuousClock.Instant
    let callback: @Sendable (Bool) -> Void
}

/// What a ``PostgresLogFollower``'s lock holds.
struct FollowerState {
    var stores: [StoreID: FollowedStore] = [:]
    /// The connection's state: `.connecting`, `.following` once connected, `.unavailable`,
    /// `.stopped(nil)` once the thread ended (a store's own stop is its ``FollowedStore/stopReason``).
    var connection: PostgresLogFollower.Status = .connecting
    /// Stores whose head row must be read (followed anew, named changed by a doorbell, after a
    /// reconnect or at the poll).
    var headsToRead: Set<StoreID> = []
    /// Stores that may have something to read or apply (offered entries, a head announced or
    /// read past their applied version): the thread looks only at these, not at every store.
    var mayBeBehind: Set<StoreID> = []
    var generation: UInt64 = 0
    var waiters: [FollowerWaiter] = []
    var stopping = false
    var finished = false

    /// Whether the thread has work without waiting for the doorbell.
    var hasWork: Bool {
        !headsToRead.isEmpty || !mayBeBehind.isEmpty
    }

    /// `store`'s status: its own stop first, then the connection's, then whether it caught up.
    func status(of store: StoreID) -> PostgresLogFollower.Status {
        guard let followed = stores[store] else { return .stopped("the store \(store) is not followed") }
        if let reason = followed.stopReason { return .stopped(reason) }
        switch connection {
        case .following: return followed.caughtUp ? .following : .connecting
        default: return connection
        }
    }
}
