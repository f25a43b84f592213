import ConcurrencyKit
import Journal

/// What stores stopped together (`StoreLoader.unload(_:)` with a list: a server's stop, an idle
/// sweep) leave to be done once for all of them: a replica's stores leave their last snapshots,
/// stored locally in one transaction (one sync) and registered in the log in one, instead of one
/// of each per store.
final class StoreStopBatch: Sendable {
    private let leftovers = Lock<[StoreID: ReplicaLeftover]>([:])

    init() {}

    /// The store `id` stopped, leaving `leftover`.
    func add(_ leftover: ReplicaLeftover, of id: StoreID) {
        leftovers.withLock { $0[id] = leftover }
    }

    /// The last snapshots to store, by store.
    var snapshotsToStore: [StoreID: JournalSnapshot] {
        leftovers.withLock { $0.compactMapValues(\.snapshot) }
    }

    /// The snapshot versions to register, by store, once the stores `stored` had their last
    /// snapshot stored: that one's version, else the newest stored before. Only a stored snapshot
    /// is registered (retention may remove the records before it).
    func registrations(stored: Set<StoreID>) -> [StoreID: UInt64] {
        leftovers.withLock { leftovers in
            var registrations: [StoreID: UInt64] = [:]
            for (id, leftover) in leftovers where leftover.registers {
                let last = stored.contains(id) ? leftover.snapshot?.version ?? 0 : 0
                registrations[id] = max(leftover.stored, last)
            }
            return registrations
        }
    }
}
