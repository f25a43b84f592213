public import Journal
import ConcurrencyKit

/// A replica's view of the shared PostgreSQL log, as ``Journal/SharedLog``: appends through one
/// ``PostgresGroupCommit`` (one transaction per batch of requests), applies through one
/// ``PostgresLogFollower`` (which takes what the appender committed without reading it back),
/// looks up the idempotency keys of requests in batches on a thread of its own
/// (``PostgresAnswerLookup``), reads (`GET /actions`, history, expired answers) on another
/// connection, one call at a time, and registers the replica and removes old records on a
/// third (the maintenance connection).
public final class PostgresSharedLog: SharedLog {
    private let conninfo: String
    /// How long one statement of a registration or a removal may take (``defaultMaintenanceTimeout``).
    private let maintenanceTimeout: Duration
    /// The connection of registrations, renewals and removals (``maintaining(_:)``).
    private let maintenance = Lock<PostgresLog?>(nil)
    /// Set when ``stop()`` begins.
    private let maintenanceStopping = Lock(false)
    private let appender: PostgresGroupCommit
    private let lookup: PostgresAnswerLookup
    private let follower = Lock<PostgresLogFollower?>(nil)
    private let commitListeners = Lock<[@Sendable (Int, Duration) -> Void]>([])
    /// The reading connection, once opened (planned per execution: its reads cover a log that
    /// grows); a `PostgresLog` is used by one thread at a time.
    private let reader: Lock<PostgresLog?>

    /// Opens the log at `conninfo` (a `postgresql://` URL or libpq `key=value` pairs; empty for
    /// libpq's `PG*` environment variables), creating its schema on first use, retrying while
    /// PostgreSQL cannot be reached for up to `patience` (`onRetry` hears each failure, for a log
    /// line). Throws ``Journal/JournalError`` with ``Journal/JournalError/Code/newerFormat`` for a
    /// schema of another version (never migrated silently), ``Journal/JournalError/Code/unusable``
    /// when PostgreSQL stayed unreachable.
    /// `maintenanceTimeout` bounds each statement of registrations and removals.
    public init(
        conninfo: String,
        patience: Duration = .seconds(60),
        maintenanceTimeout: Duration = PostgresSharedLog.defaultMaintenanceTimeout,
        onRetry: (String, Duration) -> Void = { _, _ in }
    ) throws(JournalError) {
        self.conninfo = conninfo
        self.maintenanceTimeout = maintenanceTimeout
        do {
            let log = try PostgresLog.connect(to: conninfo, retryingFor: patience) { error, pause in
                onRetry(error.message, pause)
            }
            try log.planEachExecution()
            reader = Lock(Optional(log))
        } catch {
            throw JournalError(
                code: error.code == .incompatibleSchema ? .newerFormat : .unusable,
                message: "cannot open the shared log in PostgreSQL: \(error.message)"
            )
        }
        appender = Self.appender(conninfo: conninfo, follower: follower, listeners: commitListeners)
        lookup = PostgresAnswerLookup(conninfo: conninfo)
    }

    /// A log that connects on first use: for a replica started while PostgreSQL cannot be reached
    /// (it serves `/healthz` 503 meanwhile; its follower and appender retry by themselves). The
    /// schema is created or checked by the first connection that succeeds; an incompatible one
    /// then stops the follower with the reason.
    public init(connectingLater conninfo: String, maintenanceTimeout: Duration = PostgresSharedLog.defaultMaintenanceTimeout) {
        self.conninfo = conninfo
        self.maintenanceTimeout = maintenanceTimeout
        reader = Lock(nil)
        appender = Self.appender(conninfo: conninfo, follower: follower, listeners: commitListeners)
        lookup = PostgresAnswerLookup(conninfo: conninfo)
    }

    /// The appender, which hands what it committed to the follower (once started) and tells the
    /// commit listeners.
    private static func appender(
        conninfo: String, follower: Lock<PostgresLogFollower?>, listeners: Lock<[@Sendable (Int, Duration) -> Void]>
    ) -> PostgresGroupCommit {
        PostgresGroupCommit(conninfo: conninfo) { entries, duration in
            follower.withLock { $0 }?.offer(entries)
            for listener in listeners.withLock({ $0 }) {
                listener(entries.count, duration)
            }
        }
    }

    public func onCommit(_ listener: @escaping @Sendable (Int, Duration) -> Void) {
        commitListeners.withLock { $0.append(listener) }
    }

    public var knownHead: UInt64 {
        follower.withLock { $0 }?.knownHead ?? 0
    }

    public func head() throws(JournalError) -> UInt64 {
        try reading { log throws(PostgresLogError) in try log.head() }
    }

    /// Why `conninfo` is no connection string libpq can read (its message, the password
    /// redacted), or nil when it is one: for a settings check at start, since such a string
    /// fails every attempt to connect.
    public static func connectionStringProblem(_ conninfo: String) -> String? {
        PostgresConnection.connectionStringProblem(conninfo)
    }

    public func identity() throws(JournalError) -> String {
        try reading { log throws(PostgresLogError) in log.identity }
    }

    public func start(
        applied: UInt64,
        onStatus: @escaping @Sendable (SharedLogStatus) -> Void,
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void,
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) throws(JournalError) {
        let follower = PostgresLogFollower(
            conninfo: conninfo, applied: applied, onStatus: { onStatus(Self.status($0)) }, verify: verify, apply: apply
        )
        self.follower.withLock { $0 = follower }
        guard appender.start(), follower.start() else {
            throw JournalError(code: .unusable, message: "could not start the threads that append to and follow the shared log")
        }
    }

    public func submit(_ group: LogGroup, completion: @escaping @Sendable (Result<LogGroupOutcome, JournalError>) -> Void) {
        appender.submit(group) { result in
            completion(result.mapError(Self.journalError))
        }
    }

    public func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool {
        follower.withLock { $0 }?.waitUntilApplied(version, timeout: timeout) ?? false
    }

    public func whenApplied(_ version: UInt64, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void) {
        guard let follower = follower.withLock({ $0 }) else { return callback(false) }
        follower.whenApplied(version, timeout: timeout, callback)
    }

    public var applied: UInt64 {
        follower.withLock { $0 }?.applied ?? 0
    }

    public var status: SharedLogStatus {
        follower.withLock({ $0 }).map { Self.status($0.status) } ?? .catchingUp
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
        appender.failure.map(Self.journalError)
    }

    /// Transactions and groups appended so far by this replica.
    public var appendStatistics: PostgresGroupCommit.Statistics {
        appender.statistics
    }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try reading { log throws(PostgresLogError) in try log.answer(forKey: key) }
    }

    /// Batched with the lookups of concurrent requests, on the lookup thread.
    public func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void) {
        lookup.lookUp(key) { result in
            completion(result.mapError(Self.journalError))
        }
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try reading { log throws(PostgresLogError) in try log.removeAnswers(keptBefore: time) }
    }

    public func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError) {
        try reading { log throws(PostgresLogError) in try log.removeAnswer(forKey: key, keptBefore: time) }
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try reading { log throws(PostgresLogError) in
            try log.entries(after: version, limit: limit, fromEarliest: true).map(\.record)
        }
    }

    /// On the maintenance connection (``maintaining(_:)``), which outlives ``stop()``: a
    /// replica registers its last snapshot after it.
    public func register(replica name: String, instance: String?, snapshot: UInt64) throws(JournalError) -> SharedLogRegistration {
        try maintaining { log throws(PostgresLogError) in try log.register(replica: name, instance: instance, snapshot: snapshot) }
    }

    /// On the maintenance connection: removing many records takes many transactions, which must
    /// not hold up the reads of `GET /actions` and resuming streams. At most
    /// ``removalChunksPerCall`` transactions per call: a backlog (retention turned on over a
    /// long log) goes over the next snapshots instead of holding up this one's thread.
    public func removeRecords(
        keeping versions: UInt64, recordedBefore cutoff: Int64?, ignoringReplicasSilentFor silence: Duration?
    ) throws(JournalError) -> UInt64? {
        try maintaining { log throws(PostgresLogError) in
            try log.removeRecords(
                keeping: versions, recordedBefore: cutoff, ignoringReplicasSilentFor: silence, maxChunks: Self.removalChunksPerCall,
                continuing: { [maintenanceStopping] in !maintenanceStopping.withLock { $0 } }
            )
        }
    }

    /// On the maintenance connection.
    public func forgetReplicas(silentFor silence: Duration) throws(JournalError) -> [ForgottenReplica] {
        try maintaining { log throws(PostgresLogError) in try log.forgetReplicas(silentFor: silence) }
    }

    /// Transactions of 1,000 records per ``removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:)``: ten times
    /// what a snapshot every 10,000 versions (the default) needs in steady state.
    static let removalChunksPerCall = 100

    /// How long one statement of a registration or a removal may take by default, lock waits
    /// included: a removal's chunk of 1,000 records takes milliseconds.
    public static let defaultMaintenanceTimeout = Duration.seconds(30)

    /// Runs `body` on the maintenance connection, whose statements (lock waits included) are
    /// cancelled after `maintenanceTimeout`: a lock held elsewhere must not hold up a replica's
    /// renewals, its snapshots or its clean stop for ever. The connection is opened on first use
    /// and kept (registrations, renewals and removals would otherwise each open one, and check
    /// the schema, per snapshot and per renewal). One that PostgreSQL closed while it was idle
    /// (a restart) is opened again first; one that breaks during `body` without having shown it
    /// runs `body` again on a new one, so `body` must be safe to run twice, even after a
    /// `COMMIT` whose outcome was lost (registrations, forgetting and removals are). Once
    /// ``stop()`` began, each call opens a connection for itself.
    private func maintaining<Result>(_ body: (PostgresLog) throws(PostgresLogError) -> Result) throws(JournalError) -> Result {
        do throws(PostgresLogError) {
            if maintenanceStopping.withLock({ $0 }) {
                return try withConnectionOfItsOwn(body)
            }
            return try maintenance.withLock { open throws(PostgresLogError) in
                if let log = open {
                    if log.connection.isConnected, log.connection.serverSpokeWhileIdle { try log.connection.connect() }
                    // Up when the call starts: a break during it is one to try again after. A
                    // connection that failed before is reconnected by the call itself, and a
                    // failure of that is not tried twice (a host that does not answer).
                    let wasUp = log.connection.isConnected
                    do throws(PostgresLogError) {
                        return try body(log)
                    } catch where error.code == .unavailable && wasUp {
                        return try body(log)
                    }
                }
                let log = try openMaintenanceConnection()
                open = log
                return try body(log)
            }
        } catch {
            throw Self.journalError(error)
        }
    }

    /// A maintenance connection, its statements limited to `maintenanceTimeout`.
    private func openMaintenanceConnection() throws(PostgresLogError) -> PostgresLog {
        let log = try PostgresLog(conninfo: conninfo)
        do throws(PostgresLogError) {
            try log.limitStatements(to: maintenanceTimeout)
        } catch {
            log.close()
            throw error
        }
        return log
    }

    /// `body` on a maintenance connection opened for it and closed after it.
    private func withConnectionOfItsOwn<Result>(_ body: (PostgresLog) throws(PostgresLogError) -> Result) throws(PostgresLogError) -> Result {
        let log = try openMaintenanceConnection()
        defer { log.close() }
        return try body(log)
    }

    public func stop() {
        appender.stop()
        lookup.stop()
        follower.withLock { $0 }?.stop()
        reader.withLock { $0?.close() }
        // First the flag: a removal under way stops after its current transaction, and calls
        // from now on open connections of their own instead of waiting for this one.
        maintenanceStopping.withLock { $0 = true }
        maintenance.withLock { log in
            log?.close()
            log = nil
        }
    }

    /// `body` on the reading connection (requests' reads: `GET /actions`, streams resuming from
    /// the log, kept answers). While the follower cannot reach the log (or has not yet), it fails
    /// at once instead of connecting on the request's thread: a host that does not answer held
    /// each caller for the connect timeout, one after another on this connection's lock, until
    /// the HTTP workers were all waiting and `/healthz` went unanswered.
    private func reading<Result>(_ body: (PostgresLog) throws(PostgresLogError) -> Result) throws(JournalError) -> Result {
        switch follower.withLock({ $0 })?.status {
        case .unavailable(let reason)?:
            throw JournalError(code: .writeFailed, message: "the shared log cannot be reached now: \(reason)")
        case .connecting?:
            throw JournalError(code: .writeFailed, message: "the shared log is not reached yet")
        default:
            break
        }
        do throws(PostgresLogError) {
            return try reader.withLock { reader throws(PostgresLogError) in
                let log: PostgresLog
                if let open = reader {
                    log = open
                    // Terminated while idle (PostgreSQL restarted): the first read on it failed
                    // as a refused statement, after /healthz already said ok.
                    try log.reconnectIfTerminated()
                } else {
                    log = try PostgresLog(conninfo: conninfo)
                    try log.planEachExecution()
                    reader = log
                }
                do throws(PostgresLogError) {
                    return try body(log)
                } catch where error.code == .unavailable {
                    // A connection broken since the last read (PostgreSQL restarted) fails once;
                    // the next call reconnects.
                    return try body(log)
                }
            }
        } catch {
            throw Self.journalError(error)
        }
    }

    /// The journal's view of a log error: unreachable → ``Journal/JournalError/Code/writeFailed``
    /// (nothing stored, retry), a broken `COMMIT` → ``Journal/JournalError/Code/outcomeUnknown``.
    static func journalError(_ error: PostgresLogError) -> JournalError {
        let code: JournalError.Code = switch error.code {
        case .unavailable, .queryFailed, .headMoved: .writeFailed
        case .commitOutcomeUnknown: .outcomeUnknown
        case .incompatibleSchema: .newerFormat
        case .corrupt: .corrupt
        case .closed: .closed
        }
        return JournalError(code: code, message: "shared log: \(error.message)")
    }
}
