public import Journal

/// The stores of the shared log (``Journal/StoreCatalog``'s statements): a store exists while it
/// has a head row in `remvvm_head`, which holds its version, incarnation and times. Creations and
/// deletions take ``PostgresLogSchema/catalogLock``, so that the count a creation checks against
/// its limit holds until it commits, whichever replica creates.
extension PostgresLog {
    /// The columns of a description, in the order ``description(_:)`` reads them.
    private static let described = "store, version, created_at, last_action_at, incarnation"

    /// How long a read-back after a lost `COMMIT` waits for the catalog's lock (the lost
    /// transaction's end) before it calls the outcome unknown.
    static let readBackLockTimeoutMilliseconds = 5_000

    /// The description of `store`, or nil when it does not exist.
    public func describe(_ store: StoreID) throws(PostgresLogError) -> StoreDescription? {
        let rows = try run("SELECT \(Self.described) FROM remvvm_head WHERE store = $1", [store.rawValue])
        return try rows.rows.first.map(Self.description)
    }

    /// Creates `store` (version 0, a new incarnation, created at `time`, milliseconds since 1970)
    /// unless it exists or `limit` stores exist. When the connection breaks during the creation's
    /// `COMMIT`, the store is read back on a new connection: there as the incarnation this
    /// creation made → ``Journal/StoreCreation/created(_:)``; absent → nothing of the creation
    /// remains, ``PostgresLogError/Code/unavailable`` (retry); another incarnation (deleted and
    /// created again meanwhile), or no answer → ``PostgresLogError/Code/commitOutcomeUnknown``.
    /// Never the answer of a creation run twice (`existed` for a store this one created).
    public func create(_ store: StoreID, limit: Int, at time: Int64) throws(PostgresLogError) -> StoreCreation {
        var decided: StoreCreation?
        do throws(PostgresLogError) {
            return try inTransaction(lostCommitIsUnknown: true) { () throws(PostgresLogError) -> StoreCreation in
                let result = try creation(of: store, limit: limit, at: time)
                decided = result
                return result
            }
        } catch where error.code == .commitOutcomeUnknown {
            guard let decided else { throw error }
            guard case .created(let made) = decided else { return decided }  // nothing written
            switch try readBackAfterLostCommit(store, error)?.incarnation {
            case made.incarnation?:
                return .created(made)
            case nil:
                throw PostgresLogError(code: .unavailable, message: "the store \(store) does not exist after a COMMIT whose answer was lost: nothing of its creation remains (\(error.message))")
            default:
                throw PostgresLogError(code: .commitOutcomeUnknown, message: "the store \(store) exists as another incarnation after a COMMIT whose answer was lost: whether this creation made it is unknown (\(error.message))")
            }
        }
    }

    /// ``create(_:limit:at:)``'s statements, in its transaction.
    private func creation(of store: StoreID, limit: Int, at time: Int64) throws(PostgresLogError) -> StoreCreation {
        try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLogSchema.catalogLock))")
        let found = try connection.execute("SELECT \(Self.described) FROM remvvm_head WHERE store = $1", [store.rawValue])
        if let row = found.rows.first { return .existed(try Self.description(row)) }
        let count = try connection.execute("SELECT count(*) FROM remvvm_head")
        guard try Self.number(count.rows.first?.first ?? nil, "count of stores") < UInt64(max(0, limit)) else {
            return .limitReached
        }
        let created = try connection.execute(
            """
            INSERT INTO remvvm_head (store, version, incarnation, created_at) VALUES ($1, 0, gen_random_uuid()::text, $2)
            RETURNING \(Self.described)
            """,
            [store.rawValue, String(time)]
        )
        guard let row = created.rows.first else {
            throw PostgresLogError(code: .corrupt, message: "the creation of store \(store) answered no row")
        }
        return .created(try Self.description(row))
    }

    /// `store`'s description read on a new connection after `lost`, a `COMMIT` whose answer was
    /// lost, once the catalog's lock is taken: the lost transaction may still be running on the
    /// server (its `COMMIT` waiting for a synchronous standby, or not yet seen to have lost its
    /// client) and holds that lock until it ends, so the read sees its outcome, never the state
    /// before it. A failure to read it, or a lock not had within
    /// ``readBackLockTimeoutMilliseconds``, leaves the outcome unknown
    /// (``PostgresLogError/Code/commitOutcomeUnknown``, never `unavailable`, which callers take
    /// for nothing done and run again).
    private func readBackAfterLostCommit(_ store: StoreID, _ lost: PostgresLogError) throws(PostgresLogError) -> StoreDescription? {
        do throws(PostgresLogError) {
            try connection.connect()
            return try inTransaction { () throws(PostgresLogError) -> StoreDescription? in
                try connection.execute("SET LOCAL lock_timeout = \(Self.readBackLockTimeoutMilliseconds)")
                try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLogSchema.catalogLock))")
                return try describe(store)
            }
        } catch {
            throw PostgresLogError(code: .commitOutcomeUnknown, message: "\(lost.message); reading the store \(store) back failed: \(error.message)")
        }
    }

    /// Up to `limit` descriptions of the stores whose id starts with `prefix` and comes after
    /// `after`, ordered by id (bytes: the column's collation is `C`).
    public func list(prefix: String, after: StoreID?, limit: Int) throws(PostgresLogError) -> [StoreDescription] {
        guard limit > 0 else { return [] }
        let rows = try run(
            """
            SELECT \(Self.described) FROM remvvm_head
            WHERE store >= $1 AND starts_with(store, $1) AND ($2::text IS NULL OR store > $2)
            ORDER BY store LIMIT $3
            """,
            [prefix, after?.rawValue, String(limit)]
        )
        return try rows.rows.map(Self.description)
    }

    /// Deletes `store`: its records, kept answers and registrations, then its head row, in one
    /// transaction that waits for the appends holding its head; rings the doorbell so that
    /// followers stop following it. False when it did not exist; the store `default` cannot be
    /// deleted (``PostgresLogError/Code/queryFailed``). When the connection breaks during the
    /// deletion's `COMMIT`, the store is read back on a new connection: absent → true; there as
    /// the incarnation this deletion removed → ``PostgresLogError/Code/unavailable`` (nothing
    /// deleted: retry); another incarnation, or no answer → ``PostgresLogError/Code/commitOutcomeUnknown``.
    public func delete(_ store: StoreID) throws(PostgresLogError) -> Bool {
        guard store != .default else {
            throw PostgresLogError(code: .queryFailed, message: "the store default cannot be deleted")
        }
        var removed: String?
        do throws(PostgresLogError) {
            return try inTransaction(lostCommitIsUnknown: true) { () throws(PostgresLogError) -> Bool in
                removed = try deletion(of: store)
                return removed != nil
            }
        } catch where error.code == .commitOutcomeUnknown {
            guard let removed else { return false }  // nothing written
            switch try readBackAfterLostCommit(store, error)?.incarnation {
            case nil:
                return true
            case removed?:
                throw PostgresLogError(code: .unavailable, message: "the store \(store) still exists after a COMMIT whose answer was lost: it was not deleted (\(error.message))")
            default:
                throw PostgresLogError(code: .commitOutcomeUnknown, message: "the store \(store) exists as another incarnation after a COMMIT whose answer was lost: whether this deletion removed the one before is unknown (\(error.message))")
            }
        }
    }

    /// ``delete(_:)``'s statements, in its transaction: the incarnation deleted, nil when the
    /// store did not exist.
    private func deletion(of store: StoreID) throws(PostgresLogError) -> String? {
        try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLogSchema.catalogLock))")
        let head = try connection.execute("SELECT incarnation FROM remvvm_head WHERE store = $1 FOR UPDATE", [store.rawValue])
        guard let row = head.rows.first else { return nil }
        try connection.execute(
            """
            WITH records AS (DELETE FROM remvvm_log WHERE store = $1),
            answers AS (DELETE FROM remvvm_answers WHERE store = $1),
            replicas AS (DELETE FROM remvvm_replicas WHERE store = $1)
            DELETE FROM remvvm_head WHERE store = $1
            """,
            [store.rawValue]
        )
        try connection.execute(
            "SELECT pg_notify('\(PostgresLogSchema.channel)', $1)", [PostgresLogDoorbell.deletion(of: store)]
        )
        return (row.first ?? nil) ?? ""
    }

    /// How many stores exist.
    public func countStores() throws(PostgresLogError) -> Int {
        let rows = try run("SELECT count(*) FROM remvvm_head")
        return Int(try Self.number(rows.rows.first?.first ?? nil, "count of stores"))
    }

    /// The description of a row of ``described``.
    private static func description(_ row: [String?]) throws(PostgresLogError) -> StoreDescription {
        guard row.count == 5, let incarnation = row[4] else {
            throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable store row")
        }
        return StoreDescription(
            id: try store(row[0]), version: try number(row[1], "store version"),
            createdAt: Int64(try number(row[2], "store creation time")),
            lastActionAt: try row[3].map { text throws(PostgresLogError) in Int64(try number(text, "store's last action time")) },
            incarnation: incarnation
        )
    }
}
