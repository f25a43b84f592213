public import Journal

/// The stores of a replica's data directory (`docs/replicas.md`, "Many stores"): a replica keeps
/// only snapshots here, one set per store of the shared log it has loaded, and the shared log's
/// catalog says which stores exist. A store's rows here belong to one incarnation of the log's
/// store: its row carries that incarnation, so that the snapshots of a store deleted from the
/// log are never taken for the store created again under its id.
extension SQLiteJournalStorage {
    /// The snapshot storage of the shared log's store `store` (its id and incarnation, as the
    /// log's catalog describes it): its rows here when they are of that incarnation; otherwise
    /// (none yet, or of an incarnation deleted from the log meanwhile) a new row of it, the old
    /// one's snapshots removed, in one transaction. The view's
    /// ``Journal/JournalStorage/sharedLogIdentity()`` is the incarnation: the identity
    /// `PostgresStoreLog` gives the store. Not for `default`, whose snapshots are the file's own.
    public func replicaStorage(for store: StoreDescription) throws(JournalError) -> SQLiteStoreJournal {
        guard store.id != .default else {
            throw JournalError(code: .unusable, message: "the store default of a replica keeps its snapshots in \(path) itself")
        }
        let (key, created) = try withWriter { writer throws(SQLiteError) -> (Int64, Bool) in
            var key: Int64 = 0
            var created = false
            var removed: Int64?
            try writer.database.transaction { () throws(SQLiteError) in
                let existing = try writer.database.prepare("SELECT key, incarnation FROM stores WHERE id = ?1")
                try existing.bind(1, store.id.rawValue)
                if try existing.step() {
                    if existing.text(1) == store.incarnation {
                        key = existing.int64(0)
                        return
                    }
                    let old = existing.int64(0)
                    try Self.removeStore(key: old, from: writer.database)
                    removed = old
                } else {
                    created = true
                }
                let insert = try writer.database.prepare(
                    "INSERT INTO stores(id, incarnation, created_at) VALUES (?1, ?2, ?3) RETURNING key"
                )
                try insert.bind(1, store.id.rawValue)
                try insert.bind(2, store.incarnation)
                try insert.bind(3, store.createdAt)
                _ = try insert.step()
                key = insert.int64(0)
            }
            if let removed {
                deletedStoreKeys.withLock { _ = $0.insert(removed) }
            }
            return (key, created)
        } describing: { "keeping snapshots of the store \(store.id) in \(path) failed: \($0)" }
        if created {
            storeCount.withLock { count in count = count.map { $0 + 1 } }
        }
        return SQLiteStoreJournal(database: self, scope: StoreScope(id: store.id, key: key), logIdentity: store.incarnation)
    }

    /// Stores the snapshot of each replica's store of `snapshots` (store id → snapshot) in one
    /// transaction (one sync), keeping each store's newest two usable ones: a replica stopping with many
    /// stores loaded writes their last snapshots at once. A store without a row here (never
    /// loaded, or deleted meanwhile) is skipped; returns the stores whose snapshot was stored.
    public func saveSnapshots(_ snapshots: [StoreID: JournalSnapshot]) throws(JournalError) -> Set<StoreID> {
        guard !snapshots.isEmpty else { return [] }
        return try withWriter { writer throws(SQLiteError) -> Set<StoreID> in
            var saved: Set<StoreID> = []
            try writer.database.transaction { () throws(SQLiteError) in
                let select = try writer.database.prepare("SELECT key FROM stores WHERE id = ?1")
                for id in snapshots.keys.sorted() {
                    guard id != .default, let snapshot = snapshots[id] else { continue }
                    select.reset()
                    try select.bind(1, id.rawValue)
                    guard try select.step() else { continue }
                    let scope = StoreScope(id: id, key: select.int64(0))
                    try Self.insertSnapshot(snapshot, of: scope, writer)
                    saved.insert(id)
                }
            }
            return saved
        } describing: { "the snapshots of \(snapshots.count) stores to \(path) failed: \($0)" }
    }
}
