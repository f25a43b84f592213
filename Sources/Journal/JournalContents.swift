/// A journal's records and snapshots as stored, each marked intact or not: what
/// `remvvm-server verify` and `repair` read to check that replay gives every kept snapshot's state.
public protocol JournalContents: Sendable {
    /// Where the data is kept, for the report: the journal file's path.
    var location: String { get }

    /// Every kept snapshot, oldest first, with ``JournalSnapshot/isIntact`` set from its checksum.
    func storedSnapshots() throws(JournalError) -> [JournalSnapshot]

    /// Up to `limit` records with a version greater than `version`, oldest first, each with
    /// ``JournalRecord/isIntact`` set from its checksum.
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord]
}

/// How `remvvm-server repair` leaves a journal: every version through ``lastGoodVersion`` and a
/// snapshot of it; what is damaged, and what follows the damage, gone.
public struct JournalRepairPlan: Sendable, Equatable {
    /// The newest version the journal can rebuild: kept, with everything before it that is intact.
    public var lastGoodVersion: UInt64
    /// The state at ``lastGoodVersion``, written as the newest snapshot.
    public var snapshot: JournalSnapshot
    /// Records up to this version are removed too (a damaged one, and the history before it), with
    /// the snapshots older than it, so that those kept run without a gap from a base that agrees
    /// with them; nil when nothing before the base is damaged.
    public var removeRecordsThrough: UInt64?

    /// Creates a plan.
    public init(lastGoodVersion: UInt64, snapshot: JournalSnapshot, removeRecordsThrough: UInt64?) {
        (self.lastGoodVersion, self.snapshot, self.removeRecordsThrough) = (lastGoodVersion, snapshot, removeRecordsThrough)
    }
}
