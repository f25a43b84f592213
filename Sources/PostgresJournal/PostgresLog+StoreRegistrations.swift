public import Journal

/// Registrations of many stores' snapshots at once: a replica that stops (or unloads many idle
/// stores) registers the last snapshot of each store it had loaded in one transaction, instead
/// of one transaction (and four round trips) per store (`docs/replicas.md`, "Many stores").
extension PostgresLog {
    /// The most stores one statement of ``registerSnapshots(of:_:)`` carries.
    static let registrationsPerStatement = 1_000

    /// Registers replica `name`'s snapshot of each store of `snapshots` (store → version), with
    /// no process recorded (the name released, as at a clean stop), and returns the stores
    /// registered. A store is left out, as ``register(replica:instance:snapshot:of:)`` refuses it,
    /// when it no longer exists, when its snapshot is past its head, or when records after the
    /// snapshot are no longer in the log. One transaction, one statement per
    /// ``registrationsPerStatement`` stores; the table is locked against removals first
    /// (`SHARE ROW EXCLUSIVE`: removals take it `SHARE`), so that what each statement sees of the
    /// records stays there until the registrations commit.
    public func registerSnapshots(of name: String, _ snapshots: [StoreID: UInt64]) throws(PostgresLogError) -> Set<StoreID> {
        guard !snapshots.isEmpty else { return [] }
        let stores = snapshots.keys.sorted()
        return try inTransaction { () throws(PostgresLogError) -> Set<StoreID> in
            try connection.execute("LOCK TABLE remvvm_replicas IN SHARE ROW EXCLUSIVE MODE")
            var registered: Set<StoreID> = []
            for start in stride(from: 0, to: stores.count, by: Self.registrationsPerStatement) {
                let chunk = stores[start..<min(start + Self.registrationsPerStatement, stores.count)]
                let rows = try connection.execute(
                    """
                    INSERT INTO remvvm_replicas (store, name, snapshot_version, registered_at, instance)
                    SELECT s.store, $1, s.version, clock_timestamp(), NULL
                    FROM unnest($2::text[], $3::bigint[]) AS s(store, version)
                    JOIN remvvm_head h ON h.store = s.store AND s.version <= h.version
                    WHERE s.version = h.version
                       OR EXISTS (SELECT 1 FROM remvvm_log l WHERE l.store = s.store AND l.version = s.version + 1)
                    ON CONFLICT (store, name) DO UPDATE
                    SET snapshot_version = EXCLUDED.snapshot_version, registered_at = EXCLUDED.registered_at, instance = NULL
                    RETURNING store
                    """,
                    [
                        name,
                        Self.arrayLiteral(chunk.map(\.rawValue)),
                        Self.arrayLiteral(chunk.map { snapshots[$0].map { String(min($0, UInt64(Int64.max))) } }),
                    ]
                )
                for row in rows.rows {
                    registered.insert(try Self.store(row.first ?? nil))
                }
            }
            return registered
        }
    }
}
