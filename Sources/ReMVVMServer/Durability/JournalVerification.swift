public import Journal

/// What ``JournalVerifier`` found: the problems (none when the journal is sound), what was
/// checked, and how a repair would leave it.
public struct JournalVerification: Sendable {
    /// Each problem found, a sentence naming the version or snapshot; empty when all is well.
    public var problems: [String] = []
    /// What was checked and found right (replays that reach a snapshot's state).
    public var notes: [String] = []
    /// How many records the journal holds, and the first and last version.
    public var recordCount: UInt64 = 0
    /// The first record's version, if any.
    public var firstRecord: UInt64?
    /// The last record's version, if any.
    public var lastRecord: UInt64?
    /// The kept snapshots' versions, oldest first.
    public var snapshotVersions: [UInt64] = []
    /// The versions of the snapshots that do not match their checksums.
    public var damagedSnapshots: [UInt64] = []
    /// The newest version an intact base and intact consecutive records rebuild.
    public var lastGoodVersion: UInt64 = 0
    /// The newest version the journal names (its last record, or its newest snapshot).
    public var latestVersion: UInt64 = 0
    /// How `remvvm-server repair` would leave the journal; nil when there is nothing to repair.
    public var repairPlan: JournalRepairPlan?

    /// Creates an empty report.
    public init() {}

    /// Whether anything is wrong.
    public var isSound: Bool { problems.isEmpty }

    /// Whether a repair has something to do: a problem was found.
    public var needsRepair: Bool { !problems.isEmpty }

    /// The report as lines for a terminal.
    public var lines: [String] {
        var lines: [String] = []
        let records = firstRecord.map { "records \($0)...\(lastRecord ?? $0) (\(recordCount))" } ?? "no records"
        let snapshots = snapshotVersions.isEmpty ? "no snapshots" : "snapshots of version \(snapshotVersions.map(String.init).joined(separator: ", "))"
        lines.append("\(records), \(snapshots)")
        lines += notes.map { "ok: \($0)" }
        lines += problems.map { "DAMAGED: \($0)" }
        if let plan = repairPlan {
            let dropped = latestVersion > plan.lastGoodVersion ? "drop versions \(plan.lastGoodVersion + 1)...\(latestVersion), " : ""
            let history = plan.removeRecordsThrough.map { "remove the records through version \($0) (history before the damage), " } ?? ""
            let snapshots = damagedSnapshots.isEmpty ? "" : "remove the damaged snapshot(s), "
            lines.append("last good version: \(plan.lastGoodVersion); a repair would \(dropped)\(history)\(snapshots)write a snapshot of version \(plan.lastGoodVersion)")
        }
        return lines
    }
}
