import ConcurrencyKit

/// How much of the journal is kept before the newest snapshot (records after it are always kept:
/// a restart needs them): a number of versions, or an age.
public enum JournalRetention: Sendable, Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// Records more than this many versions before the newest snapshot are removed.
    case versions(UInt64)
    /// Records older than this (by the time they were reduced) are removed, up to the newest snapshot.
    case age(Duration)

    /// A number of versions: `1_000_000` is `.versions(1_000_000)`.
    public init(integerLiteral value: UInt64) {
        self = .versions(value)
    }

    /// `1000000 versions`, or the age as a duration.
    public var description: String {
        switch self {
        case .versions(let count): "\(count) versions"
        case .age(let age): "\(age)"
        }
    }

    /// What a shared log keeps at `now` (milliseconds since 1970), as the arguments of
    /// ``Journal/SharedLog/removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:)``: the versions before the
    /// oldest replica's snapshot, and the time before which records may go.
    func sharedLogBounds(now: Int64) -> (versions: UInt64, cutoff: Int64?) {
        switch self {
        case .versions(let count): (count, nil)
        case .age(let age): (0, now - age.wholeMilliseconds)
        }
    }

    /// The newest version whose record may be removed after a snapshot of `snapshotVersion`
    /// taken at `now` (milliseconds since 1970), or nil when none may; `newestBefore` finds the
    /// newest version reduced before a time.
    func removableThrough(
        snapshotVersion: UInt64,
        now: Int64,
        newestBefore: (Int64) throws -> UInt64?
    ) rethrows -> UInt64? {
        switch self {
        case .versions(let count):
            return snapshotVersion > count ? snapshotVersion - count : nil
        case .age(let age):
            let cutoff = now - age.wholeMilliseconds
            guard let newest = try newestBefore(cutoff) else { return nil }
            return min(newest, snapshotVersion)
        }
    }
}
