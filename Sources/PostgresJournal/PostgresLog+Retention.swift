public import Journal

/// Retention of the shared log, per store: replicas register the version of their newest local snapshot
/// of each store they hold (`remvvm_replicas`, keyed by store and replica) and renew the registration while they run, and the records every
/// registered snapshot has passed may be removed. A registration that was not renewed for long
/// enough (`replicaExpiry`) is of a replica that is gone: it holds nothing back, and is deleted.
///
/// Removal and registration exclude each other: a removal locks `remvvm_replicas` in `SHARE`
/// mode (registrations write rows of it, `ROW EXCLUSIVE`) and reads the oldest snapshot under
/// that lock, and a registration reads the log's extent after its row is written, in the same
/// transaction. So either the removal saw the registered snapshot, or the registration sees
/// what the removal took away — a replica never trusts records that are about to go.
/// Removal takes no lock appends wait for while it works: appends meanwhile check their keys in
/// both tables in one snapshot, where a key moving from a removed record to `remvvm_answers` is
/// visible on one side or the other (``PostgresLogSchema/removalLock``).
extension PostgresLog {
    /// Registers (or re-registers) replica `name` with the version of its newest local snapshot
    /// (0: none) and returns the log's extent as seen after the registration. Registers nothing
    /// (and returns the extent that says why) when `snapshot` is past the head, or when records
    /// after it are no longer in the log: such a replica cannot follow this log, and its row
    /// would only hold retention back.
    public func register(replica name: String, snapshot: UInt64, of store: StoreID = .default) throws(PostgresLogError) -> SharedLogExtent {
        try register(replica: name, instance: nil, snapshot: snapshot, of: store).extent
    }

    /// ``register(replica:snapshot:)`` by the process `instance`, which the row keeps; also says
    /// which instance had registered the name before, and how long ago.
    public func register(
        replica name: String, instance: String?, snapshot: UInt64, of store: StoreID = .default
    ) throws(PostgresLogError) -> SharedLogRegistration {
        try inTransaction(committingIf: { $0.registered(snapshot) }) { () throws(PostgresLogError) in
            let previous = try connection.execute(
                "SELECT instance, floor(extract(epoch FROM clock_timestamp() - registered_at))::bigint FROM remvvm_replicas WHERE store = $2 AND name = $1 FOR UPDATE",
                [name, store.rawValue]
            ).rows.first
            try connection.execute(
                """
                INSERT INTO remvvm_replicas (store, name, snapshot_version, registered_at, instance) VALUES ($4, $1, $2, clock_timestamp(), $3)
                ON CONFLICT (store, name) DO UPDATE
                SET snapshot_version = EXCLUDED.snapshot_version, registered_at = clock_timestamp(), instance = EXCLUDED.instance
                """,
                [name, String(snapshot), instance, store.rawValue]
            )
            // The time the row is written (now() would be the transaction's start: after a long
            // wait for a lock, the row would be born expired). The extent in a statement of its
            // own: its snapshot is taken after the row is written (and after any removal that
            // held the table's lock committed).
            return SharedLogRegistration(
                extent: try extent(of: store),
                previousInstance: previous.flatMap { $0.first ?? nil },
                previousAgeSeconds: previous.flatMap { $0.count > 1 ? $0[1] : nil }.flatMap { Int64($0) }
            )
        }
    }

    /// The versions the log holds of `store` now (``PostgresLogError/Code/storeNotFound`` when
    /// it does not exist).
    public func extent(of store: StoreID = .default) throws(PostgresLogError) -> SharedLogExtent {
        let rows = try run(
            "SELECT (SELECT min(version) FROM remvvm_log WHERE store = $1), version FROM remvvm_head WHERE store = $1",
            [store.rawValue]
        )
        guard let row = rows.rows.first else { throw .storeNotFound(store) }
        let earliest = row.first ?? nil
        return SharedLogExtent(
            earliest: try earliest.map { text throws(PostgresLogError) in try Self.number(text, "earliest version") },
            head: try Self.number(row.count > 1 ? row[1] : nil, "head version")
        )
    }

    /// Deletes the registrations not renewed for `silence` (by PostgreSQL's clock: every
    /// replica's registrations are timed by the same clock) and returns them. A registration
    /// renewed meanwhile stays (the statement reads each row again before deleting it). A
    /// transaction of its own, before a removal's: inside one, after its `SHARE` lock on the
    /// table, two replicas removing at once would deadlock.
    public func forgetReplicas(silentFor silence: Duration, of store: StoreID = .default) throws(PostgresLogError) -> [ForgottenReplica] {
        let rows = try run(
            """
            DELETE FROM remvvm_replicas WHERE store = $2 AND registered_at < now() - make_interval(secs => $1::float8)
            RETURNING name, snapshot_version, floor(extract(epoch FROM now() - registered_at))::bigint
            """,
            [Self.seconds(silence), store.rawValue]
        )
        return try rows.rows.map { row throws(PostgresLogError) in
            guard row.count == 3, let name = row[0], let silent = row[2].flatMap({ Int64($0) }) else {
                throw PostgresLogError(code: .corrupt, message: "a deletion of silent replicas answered an unreadable row")
            }
            return ForgottenReplica(name: name, snapshot: try Self.number(row[1], "snapshot version"), silentSeconds: silent)
        }
    }

    /// Renews every registration of replica `name` in the stores other than `store` (its
    /// registered snapshots stay): a replica that runs keeps the snapshots of the stores it
    /// loaded before, loaded now or not, and holds their records back. Returns how many.
    public func renewRegistrations(of name: String, except store: StoreID) throws(PostgresLogError) -> Int {
        let rows = try run(
            """
            WITH renewed AS (
                UPDATE remvvm_replicas SET registered_at = clock_timestamp() WHERE name = $1 AND store <> $2 RETURNING 1
            ) SELECT count(*) FROM renewed
            """,
            [name, store.rawValue]
        )
        return Int(try Self.number(rows.rows.first?.first ?? nil, "count of renewed registrations"))
    }

    /// `duration` in seconds, as a parameter for `make_interval(secs => …)`.
    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Removes the oldest records that every registered replica's snapshot has passed, keeping
    /// `versions` versions before the oldest snapshot and every record recorded at or after
    /// `cutoff` (milliseconds since 1970; nil: no such bound), in transactions of at most `chunk`
    /// records. Registrations not renewed for `silence` (nil: however long) hold nothing back.
    /// The idempotency answers of removed records move to `remvvm_answers`: their keys stay
    /// refused until they expire. Removes nothing while no replica is registered. Stops after
    /// `maxChunks` transactions, or before one when `continuing` says no (the rest goes at the
    /// next call). Returns the newest version
    /// removed, or nil.
    public func removeRecords(
        of store: StoreID = .default,
        keeping versions: UInt64, recordedBefore cutoff: Int64?, ignoringReplicasSilentFor silence: Duration? = nil,
        chunk: Int = 1_000, maxChunks: Int = .max, continuing: () -> Bool = { true }
    ) throws(PostgresLogError) -> UInt64? {
        let chunk = min(max(1, chunk), 1_000_000)
        var bound = UInt64(Int64.max)
        if let cutoff {
            guard let newest = try newestVersion(of: store, recordedBefore: cutoff) else { return nil }
            bound = newest
        }
        var removedThrough: UInt64?
        for _ in 0..<max(1, maxChunks) {
            guard continuing() else { break }
            let (count, newest) = try removeChunk(
                of: store, keeping: versions, through: bound, ignoringReplicasSilentFor: silence, chunk: chunk
            )
            if let newest { removedThrough = newest }
            if count < chunk { break }
        }
        return removedThrough
    }

    /// One transaction of ``removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:chunk:maxChunks:continuing:)``:
    /// the oldest snapshot of the registrations renewed within `silence` is read again under the
    /// lock each time, so a replica registered meanwhile is respected.
    /// The records and their answers' move take no lock that appends wait for. The transaction
    /// holds ``PostgresLogSchema/removalLock`` (waiting for the appends that hold it shared to
    /// commit), so appends meanwhile check their keys in both tables in one snapshot
    /// (``PostgresLogSchema/createAppendFunction``; the checked path always does), which shows
    /// a moving key on its record or in `remvvm_answers`. (Schema version 1 also took the head's
    /// row lock before committing moved answers, for builds whose append function knew nothing
    /// of the removal lock; no such build runs on schema version 2.)
    private func removeChunk(
        of store: StoreID, keeping versions: UInt64, through bound: UInt64, ignoringReplicasSilentFor silence: Duration?, chunk: Int
    ) throws(PostgresLogError) -> (count: Int, newest: UInt64?) {
        try inTransaction { () throws(PostgresLogError) -> (count: Int, newest: UInt64?) in
            try connection.execute("LOCK TABLE remvvm_replicas IN SHARE MODE")
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLogSchema.removalLock))")
            // Planned for the values given: a plan made without the bound (a generic plan, or the
            // bound computed in the same statement) scans the whole log.
            try connection.execute("SET LOCAL plan_cache_mode = force_custom_plan")
            let bounds = try connection.execute(
                """
                SELECT least(
                    coalesce((
                        SELECT min(snapshot_version) FROM remvvm_replicas
                        WHERE store = $5 AND ($4::float8 IS NULL OR registered_at >= now() - make_interval(secs => $4::float8))
                    ), 0) - $1::bigint,
                    $2::bigint,
                    (SELECT min(version) FROM remvvm_log WHERE store = $5) + $3::bigint - 1
                )
                """,
                [
                    String(min(versions, UInt64(Int64.max))), String(min(bound, UInt64(Int64.max))), String(chunk),
                    silence.map(Self.seconds), store.rawValue,
                ]
            )
            // Below 1 when nothing may go (no replica registered, or none far enough); for an empty
            // log least() skips its NULL, and the DELETE below finds nothing.
            guard let through = (bounds.rows.first?.first ?? nil).flatMap({ UInt64($0) }), through > 0 else {
                return (0, nil)
            }
            let rows = try connection.execute(
                """
                WITH removed AS (
                    DELETE FROM remvvm_log WHERE store = $2 AND version <= $1
                    RETURNING version, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time
                ),
                moved AS (
                    INSERT INTO remvvm_answers (store, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time)
                    SELECT $2, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time
                        FROM removed WHERE idempotency_key IS NOT NULL
                    ON CONFLICT DO NOTHING
                )
                SELECT count(*), max(version), count(idempotency_key) FROM removed
                """,
                [String(through), store.rawValue]
            )
            let row = rows.rows.first ?? []
            guard row.count == 3 else {
                throw PostgresLogError(code: .corrupt, message: "a removal of old records answered \(row.count) columns")
            }
            let count = Int(try Self.number(row[0], "count of removed records"))
            let newest = try row[1].map { text throws(PostgresLogError) in try Self.number(text, "removed version") }
            return (count, newest)
        }
    }

    /// The newest version recorded before `cutoff` (milliseconds since 1970), or nil: found by
    /// bisecting the versions, since records are timed by the replica that appended them, in
    /// version order (clocks of different replicas may differ: the bound moves by that much).
    /// About 2·log₂(records) point reads, where a scan of the log for the time would read all of
    /// it; a record removed meanwhile counts as old.
    func newestVersion(of store: StoreID = .default, recordedBefore cutoff: Int64) throws(PostgresLogError) -> UInt64? {
        let extent = try extent(of: store)
        guard var older = extent.earliest, older <= extent.head else { return nil }
        guard try time(of: store, older) < cutoff else { return nil }
        var newer = extent.head
        if try time(of: store, newer) < cutoff { return newer }
        // time(older) < cutoff <= time(newer)
        while newer - older > 1 {
            let middle = older + (newer - older) / 2
            if try time(of: store, middle) < cutoff {
                older = middle
            } else {
                newer = middle
            }
        }
        return older
    }

    /// When `version` was recorded; `Int64.min` when it is no longer in the log.
    private func time(of store: StoreID, _ version: UInt64) throws(PostgresLogError) -> Int64 {
        let rows = try run("SELECT time FROM remvvm_log WHERE store = $2 AND version = $1", [String(version), store.rawValue])
        guard let text = rows.rows.first?.first ?? nil else { return .min }
        guard let time = Int64(text) else {
            throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable time of version \(version): \(text)")
        }
        return time
    }
}
