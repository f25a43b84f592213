import Journal

/// Which of a store's snapshots are the two it keeps: the newest two that are usable, so that a
/// damaged row never stands in for one. A row is usable when its version is a positive integer
/// and it matches its checksum (which covers the version: a version changed behind the file's
/// back, beyond the last record or not, no longer matches). Retention counts back from these two
/// only, and pruning keeps these and nothing else.
extension SQLiteJournalStorage {
    /// A store's snapshots (`?1`, its key) whose version is a positive integer below `?2`, newest
    /// first, in the columns ``SQLiteStatement/journalSnapshot(verify:in:)`` reads.
    static let usableSnapshotsQuery = """
        SELECT \(snapshotColumns) FROM snapshots
            WHERE store = ?1 AND typeof(version) = 'integer' AND version > 0 AND version < ?2
            ORDER BY version DESC
        """

    /// The versions of the newest usable snapshots of `scope` below `bound`, newest first, at most
    /// `limit` of them (inside the writer's transaction, or on its own). Reads the rows newest
    /// first and stops at the `limit`th usable one: a damaged row costs one more snapshot read.
    static func usableSnapshotVersions(
        of scope: StoreScope, below bound: Int64 = .max, limit: Int, _ writer: Writer
    ) throws(SQLiteError) -> [UInt64] {
        let select = writer.selectUsableSnapshots
        select.reset()
        defer { select.reset() }
        try select.bind(1, scope.key)
        try select.bind(2, bound)
        var versions: [UInt64] = []
        while versions.count < limit, try select.step() {
            let snapshot = try select.journalSnapshot(verify: true, in: scope.id)
            if snapshot.isIntact { versions.append(snapshot.version) }
        }
        return versions
    }

    /// Keeps the store's snapshot of `version` (just written) and the newest usable one before
    /// it, and deletes every other row of the store's: older ones, damaged ones, and any of a
    /// version after `version` (ahead of the store's state: damaged, or from a history it no
    /// longer has). Inside the writer's transaction.
    static func pruneSnapshots(of scope: StoreScope, keeping version: UInt64, _ writer: Writer) throws(SQLiteError) {
        let newest = Int64(clamping: version)
        let older = try usableSnapshotVersions(of: scope, below: newest, limit: 1, writer).first
        writer.pruneSnapshots.reset()
        try writer.pruneSnapshots.bind(1, scope.key)
        try writer.pruneSnapshots.bind(2, newest)
        try writer.pruneSnapshots.bind(3, older.map { Int64($0) } ?? newest)
        try writer.pruneSnapshots.run()
    }

    /// The newest version retention may remove records through, given the wish `version`: none
    /// (0) while the store has fewer than two usable snapshots (should its only one be found
    /// damaged, its records still rebuild it), else never past the older of the newest two (should
    /// the newer be found damaged, the older one and the records after it stand in).
    static func retentionLimit(_ version: UInt64, of scope: StoreScope, _ writer: Writer) throws(SQLiteError) -> UInt64 {
        let kept = try usableSnapshotVersions(of: scope, limit: 2, writer)
        guard kept.count == 2 else { return 0 }
        return min(version, kept[1])
    }
}
