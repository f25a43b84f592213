public import Journal

/// The stores of the shared log (a head row each), on the reading connection: a creation checks
/// the limit and inserts under one lock of the whole log, so two replicas creating at once never
/// exceed it, and two creations of one id make one store.
extension PostgresSharedLog: StoreCatalog {
    public func describe(_ id: StoreID) throws(JournalError) -> StoreDescription? {
        try connections.reading { log throws(PostgresLogError) in try log.describe(id) }
    }

    public func create(_ id: StoreID, limit: Int, at time: Int64) throws(JournalError) -> StoreCreation {
        try connections.reading { log throws(PostgresLogError) in try log.create(id, limit: limit, at: time) }
    }

    public func list(prefix: String, after: StoreID?, limit: Int) throws(JournalError) -> [StoreDescription] {
        try connections.reading { log throws(PostgresLogError) in try log.list(prefix: prefix, after: after, limit: limit) }
    }

    /// Removes the store's records, kept answers, registrations and head row; followers of it (on
    /// every replica) stop following it, saying it was deleted. Refuses `default`.
    public func delete(_ id: StoreID) throws(JournalError) -> Bool {
        try connections.reading { log throws(PostgresLogError) in try log.delete(id) }
    }

    public func count() throws(JournalError) -> Int {
        try connections.reading { log throws(PostgresLogError) in try log.countStores() }
    }
}
