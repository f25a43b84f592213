public import Journal

/// Makes a service one replica of a store shared by several servers (`docs/replicas.md`): the
/// actions go to one totally ordered log that every replica applies in the same order.
public struct ReplicaConfiguration: Sendable {
    /// The shared log (`PostgresJournal.PostgresSharedLog`).
    public var log: any SharedLog
    /// This replica's own storage, for its snapshots only (a SQLite file in its data directory):
    /// a restart applies the log from the newest one instead of from version 0.
    public var snapshots: any JournalStorage
    /// The replica's name, for logs and `/healthz` (`replicaName`).
    public var name: String

    /// Creates a replica configuration.
    public init(log: any SharedLog, snapshots: any JournalStorage, name: String) {
        self.log = log
        self.snapshots = snapshots
        self.name = name
    }
}
