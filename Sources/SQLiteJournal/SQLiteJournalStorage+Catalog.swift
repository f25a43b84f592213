public import Journal

/// The stores of the file: the `stores` table, kept in the same transactions as their records.
extension SQLiteJournalStorage: StoreCatalog {
    /// A query of `stores` rows, with the columns ``SQLiteStatement/storeDescription()`` reads,
    /// where `condition` holds (`stores.`-qualified columns). A store's head is its newest record
    /// (in `actions` or in the log of recent records), or the row's `version` and
    /// `last_action_at` when no record is newer: a commit writes no `stores` page (one page fewer
    /// per store in every transaction), and the row is brought up to date only where records go
    /// (``foldHead(of:_:)``, before retention removes them) or a repair sets it. Files written
    /// when every commit updated the row read the same. The log's heads come from `logged` (its
    /// heads per store: one pass over the log per query, which has no index).
    static func storeQuery(_ condition: String, logged: String = loggedHeads(""), then rest: String = "") -> String {
        """
        WITH logged AS (\(logged))
        SELECT stores.id, MAX(stores.version, COALESCE((SELECT MAX(a.version) FROM actions a WHERE a.store = stores.key), 0),
            COALESCE(logged.version, 0)), stores.created_at,
            CASE WHEN logged.version > stores.version THEN logged.time ELSE COALESCE((SELECT a.time FROM actions a
                WHERE a.store = stores.key AND a.version > stores.version ORDER BY a.version DESC LIMIT 1), stores.last_action_at) END,
            stores.incarnation, stores.key
        FROM stores LEFT JOIN logged ON logged.store = stores.key WHERE \(condition) \(rest)
        """
    }

    /// The newest record of each store in the log of recent records, `filter` (`WHERE …`) applied.
    static func loggedHeads(_ filter: String) -> String {
        "SELECT store, MAX(version) AS version, time FROM commit_log \(filter) GROUP BY store"
    }

    /// Writes the store's head (its newest record's version and time) into its row when a record
    /// is newer than what the row holds: before records are removed, so that the head outlives
    /// them (inside the caller's transaction).
    func foldHead(of scope: StoreScope, _ writer: Writer) throws(SQLiteError) {
        writer.foldHead.reset()
        defer { writer.foldHead.reset() }
        try writer.foldHead.bind(1, scope.key)
        try writer.foldHead.run()
        // The log's newest record of the store, known without a pass over the log.
        guard let newest = log.withLock({ $0.newest[scope.key] }) else { return }
        let update = writer.foldLoggedHead
        update.reset()
        defer { update.reset() }
        try update.bind(1, scope.key)
        try update.bind(2, Int64(clamping: newest.version))
        try update.bind(3, newest.time)
        try update.run()
    }

    /// The journal of `store`, a view of this file; nil when the store does not exist (create it
    /// first). Each call makes a new view: closing one leaves the others and the file open.
    public func storage(for store: StoreID) throws(JournalError) -> SQLiteStoreJournal? {
        guard let key = try describeRow(store)?.key else { return nil }
        return SQLiteStoreJournal(database: self, scope: StoreScope(id: store, key: key))
    }

    public func describe(_ id: StoreID) throws(JournalError) -> StoreDescription? {
        try describeRow(id)?.description
    }

    public func create(_ id: StoreID, limit: Int, at time: Int64) throws(JournalError) -> StoreCreation {
        try withWriter { writer throws(SQLiteError) -> StoreCreation in
            var outcome = StoreCreation.limitReached
            var before = 0
            try writer.database.transaction { () throws(SQLiteError) in
                if let existing = try storeRow(id, writer.storeRow) {
                    outcome = .existed(existing.description)
                    return
                }
                if let cached = storeCount.withLock({ $0 }) {
                    before = cached
                } else {
                    before = try Self.countStores(writer.database)
                }
                guard before < limit else { return }
                let incarnation = Self.newIncarnation()
                let insert = writer.insertStore
                insert.reset()
                try insert.bind(1, id.rawValue)
                try insert.bind(2, incarnation)
                try insert.bind(3, time)
                try insert.run()
                outcome = .created(StoreDescription(id: id, version: 0, createdAt: time, lastActionAt: nil, incarnation: incarnation))
            }
            if case .created = outcome {
                storeCount.withLock { $0 = before + 1 }
            }
            return outcome
        } describing: { "creating the store \(id) in \(path) failed: \($0)" }
    }

    public func list(prefix: String, after: StoreID?, limit: Int) throws(JournalError) -> [StoreDescription] {
        // Ids are ASCII below DEL: every id with the prefix sorts before prefix + DEL.
        var conditions = ["stores.id >= ?1"]
        if !prefix.isEmpty { conditions.append("stores.id < ?1 || char(127)") }
        if after != nil { conditions.append("stores.id > ?2") }
        let sql = Self.storeQuery(conditions.joined(separator: " AND "), then: "ORDER BY stores.id LIMIT ?3")
        return try withReader { reader throws(SQLiteError) -> [StoreDescription] in
            let select = try reader.database.prepare(sql)
            try select.bind(1, prefix)
            if let after { try select.bind(2, after.rawValue) }
            try select.bind(3, Int64(max(0, limit)))
            var stores: [StoreDescription] = []
            while try select.step() {
                stores.append(try select.storeDescription().description)
            }
            return stores
        }
    }

    public func delete(_ id: StoreID) throws(JournalError) -> Bool {
        guard id != .default else {
            throw JournalError(code: .unusable, message: "the store default cannot be deleted")
        }
        return try withWriter { writer throws(SQLiteError) -> Bool in
            var deleted: Int64?
            try writer.database.transaction { () throws(SQLiteError) in
                let select = try writer.database.prepare("SELECT key FROM stores WHERE id = ?1")
                try select.bind(1, id.rawValue)
                guard try select.step() else { return }
                let key = select.int64(0)
                try Self.removeStore(key: key, from: writer.database)
                deleted = key
            }
            guard let deleted else { return false }
            deletedStoreKeys.withLock { _ = $0.insert(deleted) }
            storeCount.withLock { count in count = count.map { $0 - 1 } }
            return true
        } describing: { "deleting the store \(id) from \(path) failed: \($0)" }
    }

    public func count() throws(JournalError) -> Int {
        if let count = storeCount.withLock({ $0 }) { return count }
        return try withReader { reader throws(SQLiteError) -> Int in try Self.countStores(reader.database) }
    }

    /// Removes the store of `key`: its records, snapshots, kept answers and row (inside a
    /// transaction; once it has committed, the caller adds `key` to ``deletedStoreKeys``).
    static func removeStore(key: Int64, from database: SQLiteDatabase) throws(SQLiteError) {
        for table in ["actions", "commit_log", "snapshots", "answers"] {
            let remove = try database.prepare("DELETE FROM \(table) WHERE store = ?1")
            try remove.bind(1, key)
            try remove.run()
        }
        let remove = try database.prepare("DELETE FROM stores WHERE key = ?1")
        try remove.bind(1, key)
        try remove.run()
    }

    private static func countStores(_ database: SQLiteDatabase) throws(SQLiteError) -> Int {
        let select = try database.prepare("SELECT COUNT(*) FROM stores")
        _ = try select.step()
        return Int(select.int64(0))
    }

    /// The store's row: its description and key.
    private func describeRow(_ id: StoreID) throws(JournalError) -> (description: StoreDescription, key: Int64)? {
        try withReader { reader throws(SQLiteError) -> (description: StoreDescription, key: Int64)? in
            try storeRow(id, reader.storeRow)
        }
    }

    /// The row of the store `id`, read without a pass over the log of recent records unless the
    /// store may have records there: its key first (never reused), then whether the log may hold
    /// its records (``mayHaveLoggedRecords(_:)``, checked before the row's read begins), then the
    /// row by id and key (none: deleted, or deleted and created again, meanwhile: looked up again).
    func storeRow(_ id: StoreID, _ statements: StoreRowStatements) throws(SQLiteError) -> (description: StoreDescription, key: Int64)? {
        while true {
            let lookup = statements.key
            lookup.reset()
            defer { lookup.reset() }
            try lookup.bind(1, id.rawValue)
            guard try lookup.step() else { return nil }
            let key = lookup.int64(0)
            lookup.reset()
            let select = mayHaveLoggedRecords(StoreScope(id: id, key: key)) ? statements.rowAndLog : statements.row
            select.reset()
            defer { select.reset() }
            try select.bind(1, id.rawValue)
            try select.bind(2, key)
            if try select.step() { return try select.storeDescription() }
        }
    }
}

/// The statements that read one store's row (``SQLiteJournalStorage/storeRow(_:_:)``), on one
/// connection.
struct StoreRowStatements {
    /// The store's key by its id (`?1`).
    let key: SQLiteStatement
    /// The row of id `?1` and key `?2`, its head from `actions` only.
    let row: SQLiteStatement
    /// The same, its head from the log of recent records too (a pass over it).
    let rowAndLog: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(SQLiteError) {
        let condition = "stores.id = ?1 AND stores.key = ?2"
        key = try database.prepare("SELECT key FROM stores WHERE id = ?1")
        row = try database.prepare(SQLiteJournalStorage.storeQuery(condition, logged: "SELECT NULL AS store, NULL AS version, NULL AS time WHERE 0"))
        rowAndLog = try database.prepare(SQLiteJournalStorage.storeQuery(condition, logged: SQLiteJournalStorage.loggedHeads("WHERE store = ?2")))
    }
}

extension SQLiteStatement {
    /// The current row of a ``SQLiteJournalStorage/storeQuery(_:logged:then:)``.
    func storeDescription() throws(SQLiteError) -> (description: StoreDescription, key: Int64) {
        let text = text(0)
        guard let id = try? StoreID(text) else {
            throw SQLiteError.damaged("the table stores holds an id that is not a store id: \(text)")
        }
        let description = StoreDescription(
            id: id, version: UInt64(clamping: int64(1)), createdAt: int64(2), lastActionAt: optionalInt64(3), incarnation: self.text(4)
        )
        return (description, int64(5))
    }
}
