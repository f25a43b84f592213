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
    /// when it no longer exists or its snapshot is past its head, and its row is removed when
    /// records after the snapshot are no longer in the log (its earlier snapshot, older, could
    /// not be followed either). One transaction; per ``registrationsPerStatement`` stores, the
    /// rows are written, then — in a statement of its own, whose snapshot is taken after the
    /// rows are written, as ``register(replica:instance:snapshot:of:)`` reads the extent — the
    /// ones whose records were removed meanwhile go. A removal waits for the rows (it locks the
    /// table in `SHARE` mode), and sees them once they commit.
    public func registerSnapshots(of name: String, _ snapshots: [StoreID: UInt64]) throws(PostgresLogError) -> Set<StoreID> {
        guard !snapshots.isEmpty else { return [] }
        let stores = snapshots.keys.sorted()
        return try inTransaction { () throws(PostgresLogError) -> Set<StoreID> in
            var registered: Set<StoreID> = []
            for start in stride(from: 0, to: stores.count, by: Self.registrationsPerStatement) {
                let chunk = stores[start..<min(start + Self.registrationsPerStatement, stores.count)]
                let parameters = [
                    name,
                    Self.arrayLiteral(chunk.map(\.rawValue)),
                    Self.arrayLiteral(chunk.map { snapshots[$0].map { String(min($0, UInt64(Int64.max))) } }),
                ]
                let written = try connection.execute(
                    """
                    INSERT INTO remvvm_replicas (store, name, snapshot_version, registered_at, instance)
                    SELECT s.store, $1, s.version, clock_timestamp(), NULL
                    FROM unnest($2::text[], $3::bigint[]) AS s(store, version)
                    JOIN remvvm_head h ON h.store = s.store AND s.version <= h.version
                    ON CONFLICT (store, name) DO UPDATE
                    SET snapshot_version = EXCLUDED.snapshot_version, registered_at = EXCLUDED.registered_at, instance = NULL
                    RETURNING store
                    """,
                    parameters
                )
                for row in written.rows {
                    registered.insert(try Self.store(row.first ?? nil))
                }
                let refused = try connection.execute(
                    """
                    DELETE FROM remvvm_replicas r
                    USING unnest($2::text[], $3::bigint[]) AS s(store, version), remvvm_head h
                    WHERE r.store = s.store AND r.name = $1 AND r.snapshot_version = s.version
                      AND h.store = s.store AND s.version < h.version
                      AND NOT EXISTS (SELECT 1 FROM remvvm_log l WHERE l.store = s.store AND l.version = s.version + 1)
                    RETURNING r.store
                    """,
                    parameters
                )
                for row in refused.rows {
                    registered.remove(try Self.store(row.first ?? nil))
                }
            }
            return registered
        }
    }
}
