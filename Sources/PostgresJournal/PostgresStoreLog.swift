public import Journal
import ConcurrencyKit

/// One store's view of the shared PostgreSQL log, as ``Journal/SharedLog``: its own versions,
/// head, idempotency keys, records, registrations and retention, over the connections and threads
/// of the whole log (``PostgresSharedLog/view(of:)``). A replica runtime works on a view as on a
/// log of one store: ``start(applied:onStatus:verify:apply:)`` follows the store from the version
/// the runtime applied (the log's one follower reads it along with every other store followed),
/// ``submit(_:completion:)`` goes through the log's one appender (a transaction carries several
/// stores' groups, each checked against its own head), ``stop()`` stops following the store
/// (unloading it) and leaves the log running.
///
/// The view's ``identity()`` is the store's incarnation — the store `default`'s is the log's
/// identity (`remvvm_meta` key `log`, as before stores) —; any other store gets a new one at each
/// creation, so a replica's snapshot of a deleted store never matches the store created again
/// under its id.
public final class PostgresStoreLog: SharedLog {
    /// The store.
    public let store: StoreID
    private let connections: PostgresLogConnections
    /// Whether ``stop()`` ran.
    private let stopped = Lock(false)

    init(store: StoreID, connections: PostgresLogConnections) {
        self.store = store
        self.connections = connections
    }

    public func head() throws(JournalError) -> UInt64 {
        try connections.reading { [store] log throws(PostgresLogError) in try log.head(of: store) }
    }

    public func identity() throws(JournalError) -> String {
        try connections.reading { [store] log throws(PostgresLogError) in
            guard let description = try log.describe(store) else { throw .storeNotFound(store) }
            return store == .default ? log.identity : description.incarnation
        }
    }

    public func start(
        applied: UInt64,
        onStatus: @escaping @Sendable (SharedLogStatus) -> Void,
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void,
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) throws(JournalError) {
        guard connections.startThreads() else {
            throw JournalError(code: .unusable, message: "could not start the threads that append to and follow the shared log")
        }
        stopped.withLock { $0 = false }
        connections.follower.follow(store, applied: applied, onStatus: { onStatus(Self.status($0)) }, verify: verify, apply: apply)
    }

    /// Starts the log's appender first if no store was followed yet. The group is meant for the
    /// incarnation of the store this view follows (the one the follower accepted; any while it
    /// accepted none, and always for `default`, which is never deleted): a store deleted and
    /// created again meanwhile refuses it (``Journal/LogGroupOutcome/storeNotFound``), rather than
    /// take the replica's `If-Match` of the old store, or answer versions the replica does not hold.
    public func submit(_ group: LogGroup, completion: @escaping @Sendable (Result<LogGroupOutcome, JournalError>) -> Void) {
        guard connections.startThreads() else {
            return completion(.failure(JournalError(code: .unusable, message: "could not start the threads that append to and follow the shared log")))
        }
        let incarnation = store == .default ? nil : connections.follower.incarnation(of: store)
        connections.appender.submit(group, to: store, incarnation: incarnation) { result in
            completion(result.mapError(PostgresLogConnections.journalError))
        }
    }

    public func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool {
        connections.follower.waitUntilApplied(version, of: store, timeout: timeout)
    }

    public func whenApplied(_ version: UInt64, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void) {
        connections.follower.whenApplied(version, of: store, timeout: timeout, callback)
    }

    public var applied: UInt64 {
        connections.follower.applied(of: store)
    }

    public var knownHead: UInt64 {
        connections.follower.knownHead(of: store)
    }

    /// Hears the transactions that carried actions of this store, with their number; until
    /// ``stop()``.
    public func onCommit(_ listener: @escaping @Sendable (Int, Duration) -> Void) {
        connections.addCommitListener(of: store, listener)
    }

    /// The follower's status of the store while it is followed (by this view or another of the
    /// same store); ``Journal/SharedLogStatus/stopped(_:)`` once this view stopped, else
    /// ``Journal/SharedLogStatus/catchingUp`` (not started yet).
    public var status: SharedLogStatus {
        if connections.follower.isFollowing(store) { return Self.status(connections.follower.status(of: store)) }
        return stopped.withLock { $0 } ? .stopped(nil) : .catchingUp
    }

    private static func status(_ status: PostgresLogFollower.Status) -> SharedLogStatus {
        switch status {
        case .connecting: .catchingUp
        case .following: .following
        case .unavailable(let message): .unavailable(message)
        case .stopped(let reason): .stopped(reason)
        }
    }

    public var appendFailure: JournalError? {
        connections.appender.failure.map(PostgresLogConnections.journalError)
    }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try connections.reading { [store] log throws(PostgresLogError) in try log.answer(forKey: key, in: store) }
    }

    /// Batched with the lookups of concurrent requests (of any store), on the lookup thread.
    public func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void) {
        connections.lookup.lookUp(key, in: store) { result in
            completion(result.mapError(PostgresLogConnections.journalError))
        }
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try connections.reading { [store] log throws(PostgresLogError) in try log.removeAnswers(of: store, keptBefore: time) }
    }

    public func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError) {
        try connections.reading { [store] log throws(PostgresLogError) in
            try log.removeAnswer(forKey: key, of: store, keptBefore: time)
        }
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try connections.reading { [store] log throws(PostgresLogError) in
            try log.entries(of: store, after: version, limit: limit, fromEarliest: true).map(\.record)
        }
    }

    /// On the maintenance connection, which outlives ``stop()``: a replica registers its last
    /// snapshot after it.
    public func register(replica name: String, instance: String?, snapshot: UInt64) throws(JournalError) -> SharedLogRegistration {
        try connections.maintaining { [store] log throws(PostgresLogError) in
            try log.register(replica: name, instance: instance, snapshot: snapshot, of: store)
        }
    }

    /// On the maintenance connection: removing many records takes many transactions, which must
    /// not hold up the reads of `GET /actions` and resuming streams. At most
    /// ``PostgresSharedLog/removalChunksPerCall`` transactions per call: a backlog (retention
    /// turned on over a long log) goes over the next snapshots instead of holding up this one's
    /// thread.
    public func removeRecords(
        keeping versions: UInt64, recordedBefore cutoff: Int64?, ignoringReplicasSilentFor silence: Duration?
    ) throws(JournalError) -> UInt64? {
        try connections.maintaining { [store, connections] log throws(PostgresLogError) in
            try log.removeRecords(
                of: store, keeping: versions, recordedBefore: cutoff, ignoringReplicasSilentFor: silence,
                maxChunks: PostgresSharedLog.removalChunksPerCall, continuing: { connections.isRunning }
            )
        }
    }

    /// On the maintenance connection: the registrations of `name` in every store but this one.
    public func renewOtherRegistrations(of name: String) throws(JournalError) -> Int {
        try connections.maintaining { [store] log throws(PostgresLogError) in try log.renewRegistrations(of: name, except: store) }
    }

    /// On the maintenance connection.
    public func forgetReplicas(silentFor silence: Duration) throws(JournalError) -> [ForgottenReplica] {
        try connections.maintaining { [store] log throws(PostgresLogError) in try log.forgetReplicas(silentFor: silence, of: store) }
    }

    /// Stops following the store (its waiters hear false) and forgets its commit listeners; the
    /// log's connections and threads go on serving the other stores (``PostgresSharedLog/stop()``
    /// ends them).
    public func stop() {
        stopped.withLock { $0 = true }
        connections.follower.unfollow(store)
        connections.removeCommitListeners(of: store)
    }
}
