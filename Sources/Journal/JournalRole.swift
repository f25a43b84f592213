/// What a journal storage keeps, recorded in it the first time a server uses it, so that a data
/// directory is never used for the other: a single-node server's journal holds the store's own
/// history, while a replica's holds snapshots of a shared log's. A single-node server started on
/// a replica's data directory would go on from a snapshot of the log and fork from it; a replica
/// started on a single-node journal would follow a log its state never came from.
public enum JournalRole: String, Sendable {
    /// The journal of a server on its own: records and snapshots (``JournalStorage``).
    case singleNode = "single-node"
    /// The local snapshots of a replica of a shared log (``SharedLog``).
    case replica
}
