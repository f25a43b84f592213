import ConcurrencyKit
import Journal

/// What stores stopped together (``StoreLoader/unload(_:)-([Store])``: a server's stop, an idle
/// sweep) leave to be done once for all of them: a replica's stores leave the registration of
/// their last snapshots, made in one transaction afterwards instead of one per store.
final class StoreStopBatch: Sendable {
    private let snapshots = Lock<[StoreID: UInt64]>([:])

    init() {}

    /// The store `id` stopped with its last snapshot at `version`, to be registered in the log.
    func register(snapshot version: UInt64, of id: StoreID) {
        snapshots.withLock { $0[id] = version }
    }

    /// The snapshots to register, by store.
    var snapshotsToRegister: [StoreID: UInt64] {
        snapshots.withLock { $0 }
    }
}
