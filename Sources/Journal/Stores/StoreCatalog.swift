/// What a server knows of one store without loading it (`GET /stores/{id}`).
public struct StoreDescription: Sendable, Equatable {
    /// The store.
    public var id: StoreID
    /// Its newest durable version: 0 for a store without actions.
    public var version: UInt64
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When its newest action was recorded, in milliseconds since 1970; nil before the first.
    public var lastActionAt: Int64?
    /// Tells this store apart from an earlier store of the same id that was deleted: made anew
    /// (random) at every creation and part of every ETag and event id the store hands out, so
    /// that none of a deleted store's matches the new one.
    public var incarnation: String

    /// Creates a description.
    public init(id: StoreID, version: UInt64, createdAt: Int64, lastActionAt: Int64?, incarnation: String) {
        self.id = id
        self.version = version
        self.createdAt = createdAt
        self.lastActionAt = lastActionAt
        self.incarnation = incarnation
    }
}

/// What ``StoreCatalog/create(_:limit:at:)`` did.
public enum StoreCreation: Sendable, Equatable {
    /// The store is new.
    case created(StoreDescription)
    /// A store of that id existed; nothing changed.
    case existed(StoreDescription)
    /// The catalog holds `limit` stores already; nothing changed.
    case limitReached
}

/// The stores of a server, durable or in memory: which exist, their descriptions, creation and
/// deletion. Loading a store's state is not its job (its journal is).
///
/// Implementations: the SQLite journal's (one database per data directory, every store's
/// records keyed by store and version), the PostgreSQL shared log's (a head row per store), and
/// one in memory.
public protocol StoreCatalog: Sendable {
    /// The store's description; nil when it does not exist.
    func describe(_ id: StoreID) throws(JournalError) -> StoreDescription?

    /// Creates the store unless it exists or the catalog holds `limit` stores; `time` is the
    /// creation time in milliseconds since 1970. Atomic: two creations of one id make one store.
    func create(_ id: StoreID, limit: Int, at time: Int64) throws(JournalError) -> StoreCreation

    /// Up to `limit` descriptions of the stores whose id starts with `prefix` and comes after
    /// `after` (nil: from the first), ordered by id (``StoreID/<(_:_:)``).
    func list(prefix: String, after: StoreID?, limit: Int) throws(JournalError) -> [StoreDescription]

    /// Removes the store with its records, snapshots and kept answers; false when it did not
    /// exist. ``StoreID/default`` cannot be deleted (the caller refuses it first).
    func delete(_ id: StoreID) throws(JournalError) -> Bool

    /// How many stores exist.
    func count() throws(JournalError) -> Int
}
