import Journal

/// What a store's start or load reads of the file and checks (`docs/journal.md`, "Checksums").
///
/// The store `default` is read whole when a server starts: every record of it is checked (its
/// checksum, and that versions run without a gap), so that a start refuses damage anywhere in it.
/// Any other store is read at its load, on the request that needs it, which must not wait for a
/// pass over history it does not replay (up to `journalRetention`, a million versions by
/// default: about half a second): such a load checks its newest usable snapshot and the records
/// after it — what it replays —, and finds the oldest and newest versions kept by their index.
/// Its older records are checked where they are read (`GET /actions`, a stream resuming from the
/// journal) and by `remvvm-server verify`.
extension SQLiteJournalStorage {
    func recover(_ scope: StoreScope) throws(JournalError) -> JournalRecovery {
        let directory = directory
        let isDefault = scope.id == .default
        let location = location(of: scope)
        let logged = mayHaveLoggedRecords(scope)
        return try withReader(describing: { "cannot read the journal \(location): \($0)" }) { reader throws(SQLiteError) -> JournalRecovery in
            let snapshots = try Self.snapshots(of: scope, in: reader.database)
            let snapshot = snapshots.first(where: \.isIntact)
            let damagedSnapshots = snapshots.prefix { !$0.isIntact }.map(\.version)
            // From the snapshot on, for a store other than `default` that has one.
            let base = isDefault ? nil : snapshot?.version
            let scan = try RecordScan(reader.database, store: scope, verify: true, log: logged, after: base)
            if let gap = scan.firstGapAfter, let earliest = scan.earliest, let latest = scan.latest {
                throw SQLiteError.damaged("versions are missing after \(gap) (records \(earliest)...\(latest), \(scan.count) of them)")
            }
            if let damaged = scan.damaged.first {
                throw SQLiteError.damagedRecord(damaged, store: scope.id, directory: directory)
            }
            let earliest: UInt64?
            let latest: UInt64?
            if let base {
                if let first = scan.earliest, first != base + 1 {
                    throw SQLiteError.damaged("the records after the snapshot of version \(base) start at \(first): versions \(base + 1)...\(first - 1) are missing")
                }
                earliest = try Self.edgeVersion(of: scope, log: logged, newest: false, in: reader.database)
                if let scanned = scan.latest {
                    latest = scanned
                } else {
                    latest = try Self.edgeVersion(of: scope, log: logged, newest: true, in: reader.database)
                }
            } else {
                earliest = scan.earliest
                latest = scan.latest
            }
            // A snapshot is written once its version is durable, and retention removes records up
            // to the older kept snapshot at most: records, when there are any, reach it.
            if let snapshot, let latest, latest < snapshot.version {
                throw SQLiteError.damaged(
                    "the newest snapshot is of version \(snapshot.version) but the records end at \(latest): versions \(latest + 1)...\(snapshot.version) are missing"
                )
            }
            let skipped = damagedSnapshots.isEmpty ? "" : " (snapshot(s) of version \(Self.list(damagedSnapshots)) do not match their checksums and were passed over)"
            if let snapshot, let earliest, earliest > snapshot.version + 1 {
                throw SQLiteError.damaged("records start at \(earliest) but the newest usable snapshot is of version \(snapshot.version)\(skipped): versions in between are missing")
            }
            if snapshot == nil, let earliest, earliest != 1 {
                throw SQLiteError.damaged("records start at \(earliest) and there is no usable snapshot to start from\(skipped)")
            }
            if snapshot == nil, earliest == nil, !damagedSnapshots.isEmpty {
                throw SQLiteError.damaged("there are no records and no usable snapshot to start from\(skipped)")
            }
            let lastVersion = max(latest ?? 0, snapshot?.version ?? 0)
            // What the file's opening found is told once, with the store the server starts with.
            return JournalRecovery(
                snapshot: snapshot, lastVersion: lastVersion, earliestVersion: earliest,
                previousStopWasUnclean: isDefault && foundUncleanStop,
                journalWasMissing: isDefault && foundJournalMissing, damagedSnapshots: damagedSnapshots
            )
        }
    }

    /// The oldest (or, `newest`, the newest) version of the store's records, in `actions` and with
    /// `log` in the log of recent records too: one step of each table's index (the log's is its
    /// few recent rows).
    static func edgeVersion(of store: StoreScope, log: Bool, newest: Bool, in database: SQLiteDatabase) throws(SQLiteError) -> UInt64? {
        var edge: UInt64?
        for table in log ? ["actions", "commit_log"] : ["actions"] {
            let select = try database.prepare("SELECT version FROM \(table) WHERE store = ?1 ORDER BY version \(newest ? "DESC" : "ASC") LIMIT 1")
            try select.bind(1, store.key)
            guard try select.step() else { continue }
            let version = try select.version(0)
            edge = edge.map { newest ? max($0, version) : min($0, version) } ?? version
        }
        return edge
    }
}
