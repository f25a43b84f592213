public import Journal

/// How a replica serves the stores of its shared log other than `default` (``StoreStorage/replica(_:)``,
/// `docs/replicas.md`, "Many stores"): each loaded store is a replica of its own, following the
/// store's view of the log from the newest local snapshot of it, under the service's replica name,
/// expiry and renewal.
public struct ReplicaStores: Sendable {
    /// The store's view of the shared log (`PostgresSharedLog.view(of:)`): its versions, keys,
    /// records and registrations.
    public var log: @Sendable (StoreID) -> any SharedLog
    /// The local storage of the store's snapshots, for the incarnation its description names
    /// (`SQLiteJournalStorage.replicaStorage(for:)`): snapshots of another incarnation (a store
    /// deleted from the log and created again) are not the store's, and go.
    public var snapshots: @Sendable (StoreDescription) throws -> any JournalStorage
    /// Removes the local snapshots of a store deleted from the log (`SQLiteJournalStorage.delete(_:)`).
    public var forget: @Sendable (StoreID) throws -> Void
    /// Stores the last snapshot of each of many stores unloaded at once, in one transaction
    /// (`SQLiteJournalStorage.saveSnapshots(_:)`), and returns the stores whose snapshot was stored.
    public var saveSnapshots: @Sendable ([StoreID: JournalSnapshot]) throws -> Set<StoreID>
    /// Registers the replica's (its name's) last snapshot of each of many stores unloaded at once,
    /// in one transaction, with no process recorded (`PostgresSharedLog.registerSnapshots(of:_:)`),
    /// and returns the stores registered.
    public var register: @Sendable (_ replica: String, _ snapshots: [StoreID: UInt64]) throws -> Set<StoreID>

    /// Describes how a replica serves its log's stores.
    public init(
        log: @escaping @Sendable (StoreID) -> any SharedLog,
        snapshots: @escaping @Sendable (StoreDescription) throws -> any JournalStorage,
        forget: @escaping @Sendable (StoreID) throws -> Void,
        saveSnapshots: @escaping @Sendable ([StoreID: JournalSnapshot]) throws -> Set<StoreID>,
        register: @escaping @Sendable (_ replica: String, _ snapshots: [StoreID: UInt64]) throws -> Set<StoreID>
    ) {
        self.log = log
        self.snapshots = snapshots
        self.forget = forget
        self.saveSnapshots = saveSnapshots
        self.register = register
    }
}
