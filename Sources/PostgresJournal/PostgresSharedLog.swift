public import Journal

/// The shared PostgreSQL log of a replica, for every store (``Journal/StoreID``): hands out a
/// view per store (``view(of:)``, a ``Journal/SharedLog`` each), is the catalog of stores
/// (``Journal/StoreCatalog``: a head row per store), and is itself the view of the store
/// `default` (what the root routes serve, and what a replica of one store uses as before).
///
/// Every view shares the log's connections and threads (``PostgresLogConnections``): one
/// appender whose transactions carry the groups of many stores (``PostgresGroupCommit``), one
/// follower for every store followed (``PostgresLogFollower``), one thread of idempotency-key
/// lookups (``PostgresAnswerLookup``), one reading connection and one maintenance connection.
public final class PostgresSharedLog: SharedLog {
    let connections: PostgresLogConnections
    /// The view of the store `default`, which this log's ``Journal/SharedLog`` methods serve.
    let defaultStore: PostgresStoreLog

    /// Opens the log at `conninfo` (a `postgresql://` URL or libpq `key=value` pairs; empty for
    /// libpq's `PG*` environment variables), creating its schema on first use (or upgrading a
    /// one-store log of schema version 1 in place), retrying while PostgreSQL cannot be reached
    /// for up to `patience` (`onRetry` hears each failure, for a log line). Throws
    /// ``Journal/JournalError`` with ``Journal/JournalErrorCode/newerFormat`` for a schema of
    /// another version (never migrated silently), ``Journal/JournalErrorCode/unusable`` when
    /// PostgreSQL stayed unreachable. `maintenanceTimeout` bounds each statement of
    /// registrations and removals.
    public init(
        conninfo: String,
        patience: Duration = .seconds(60),
        maintenanceTimeout: Duration = PostgresSharedLog.defaultMaintenanceTimeout,
        onRetry: (String, Duration) -> Void = { _, _ in }
    ) throws(JournalError) {
        let reader: PostgresLog
        do {
            reader = try PostgresLog.connect(to: conninfo, retryingFor: patience) { error, pause in
                onRetry(error.message, pause)
            }
            try reader.planEachExecution()
        } catch {
            throw JournalError(
                code: error.code == .incompatibleSchema ? .newerFormat : .unusable,
                message: "cannot open the shared log in PostgreSQL: \(error.message)"
            )
        }
        connections = PostgresLogConnections(conninfo: conninfo, maintenanceTimeout: maintenanceTimeout, reader: reader)
        defaultStore = PostgresStoreLog(store: .default, connections: connections)
    }

    /// A log that connects on first use: for a replica started while PostgreSQL cannot be reached
    /// (it serves `/healthz` 503 meanwhile; its follower and appender retry by themselves). The
    /// schema is created or checked by the first connection that succeeds; an incompatible one
    /// then stops the follower with the reason.
    public init(connectingLater conninfo: String, maintenanceTimeout: Duration = PostgresSharedLog.defaultMaintenanceTimeout) {
        connections = PostgresLogConnections(conninfo: conninfo, maintenanceTimeout: maintenanceTimeout, reader: nil)
        defaultStore = PostgresStoreLog(store: .default, connections: connections)
    }

    /// The view of `store`: its own versions, keys, records and retention over this log's
    /// connections and threads. A view is cheap (make one per store loaded); starting it follows
    /// the store, stopping it stops following (unloading), never the log. The store must exist
    /// (``create(_:limit:at:)``) for appends to be stored.
    public func view(of store: StoreID) -> PostgresStoreLog {
        store == .default ? defaultStore : PostgresStoreLog(store: store, connections: connections)
    }

    /// Why `conninfo` is no connection string libpq can read (its message, the password
    /// redacted), or nil when it is one: for a settings check at start, since such a string
    /// fails every attempt to connect.
    public static func connectionStringProblem(_ conninfo: String) -> String? {
        PostgresConnection.connectionStringProblem(conninfo)
    }

    /// Transactions and groups appended so far by this replica, for every store.
    public var appendStatistics: PostgresGroupCommit.Statistics {
        connections.appender.statistics
    }

    /// Transactions of 1,000 records per ``removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:)``: ten times
    /// what a snapshot every 10,000 versions (the default) needs in steady state.
    static let removalChunksPerCall = 100

    /// How long one statement of a registration or a removal may take by default, lock waits
    /// included: a removal's chunk of 1,000 records takes milliseconds.
    public static let defaultMaintenanceTimeout = Duration.seconds(30)

    /// Appends what is queued, stops following every store and closes the connections.
    public func stop() {
        defaultStore.stop()
        connections.stop()
    }

    /// Registers replica `name`'s snapshot of each store of `snapshots` in one transaction, on
    /// the maintenance connection, with no process recorded (``PostgresLog/registerSnapshots(of:_:)``);
    /// returns the stores registered (a store deleted meanwhile, or whose records after the
    /// snapshot were removed, is not).
    public func registerSnapshots(of name: String, _ snapshots: [StoreID: UInt64]) throws(JournalError) -> Set<StoreID> {
        try connections.maintaining { log throws(PostgresLogError) in try log.registerSnapshots(of: name, snapshots) }
    }
}
