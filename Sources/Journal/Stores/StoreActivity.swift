import Synchronization

/// The newest version of a store kept in memory and when it was reached: what its description's
/// `version` and `lastActionAt` say (``MemoryStoreCatalog``).
///
/// Every action of such a store passes here, on the store's publication path: two atomic
/// stores into an object the store's handler holds, where recording into the catalog took its
/// lock and a hash of the id (about 750 instructions an action).
public final class StoreActivity: Sendable {
    private let newestVersion: Atomic<UInt64>
    /// Milliseconds since 1970; `Int64.min` before the first action.
    private let newestActionAt: Atomic<Int64>

    /// A store at `version`, its last action at `lastActionAt` (nil: none yet).
    init(version: UInt64 = 0, lastActionAt: Int64? = nil) {
        newestVersion = Atomic(version)
        newestActionAt = Atomic(lastActionAt ?? .min)
    }

    /// Records that the store reached `version` at `time` (milliseconds since 1970). Called in
    /// version order (a store publishes one version at a time); an older version is ignored.
    public func record(version: UInt64, at time: Int64) {
        guard version > newestVersion.load(ordering: .relaxed) else { return }
        // The time first: a reader that sees `version` sees this time or a later one.
        newestActionAt.store(time, ordering: .relaxed)
        newestVersion.store(version, ordering: .releasing)
    }

    /// `description` with this activity's version and time of the last action.
    func complete(_ description: StoreDescription) -> StoreDescription {
        var description = description
        description.version = newestVersion.load(ordering: .acquiring)
        let time = newestActionAt.load(ordering: .relaxed)
        description.lastActionAt = time == .min ? nil : time
        return description
    }
}
