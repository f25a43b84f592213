import Journal
import ConcurrencyKit

/// The connections and threads every store's view of one shared log uses (``PostgresSharedLog``,
/// ``PostgresStoreLog``): one appender (``PostgresGroupCommit``: a transaction carries the groups
/// of every store), one follower (``PostgresLogFollower``: one thread and one `LISTEN` for every
/// store followed), one thread looking up idempotency keys (``PostgresAnswerLookup``), one
/// reading connection (`GET /actions`, history, expired answers, the catalog), one call at a
/// time, and one maintenance connection (registrations and removals).
final class PostgresLogConnections: Sendable {
    let conninfo: String
    /// How long one statement of a registration or a removal may take.
    private let maintenanceTimeout: Duration
    /// The connection of registrations, renewals and removals (``maintaining(_:)``).
    private let maintenance = Lock<PostgresLog?>(nil)
    /// Set when ``stop()`` begins.
    private let maintenanceStopping = Lock(false)
    let appender: PostgresGroupCommit
    let lookup: PostgresAnswerLookup
    let follower: PostgresLogFollower
    /// Who hears the commits of each store (``PostgresStoreLog/onCommit(_:)``).
    private let commitListeners: Lock<[StoreID: [@Sendable (Int, Duration) -> Void]]>
    /// The reading connection, once opened (planned per execution: its reads cover a log that
    /// grows); a `PostgresLog` is used by one thread at a time.
    private let reader: Lock<PostgresLog?>
    /// Whether the appender's and follower's threads run (started by the first store followed).
    private let threads = Lock<Bool?>(nil)

    /// Connections to `conninfo`; `reader`, if given, is the reading connection (opened already).
    init(conninfo: String, maintenanceTimeout: Duration, reader: PostgresLog?) {
        self.conninfo = conninfo
        self.maintenanceTimeout = maintenanceTimeout
        self.reader = Lock(reader)
        let follower = PostgresLogFollower(conninfo: conninfo)
        let listeners = Lock<[StoreID: [@Sendable (Int, Duration) -> Void]]>([:])
        // What the appender committed goes to the follower (applied without reading it back) and
        // to the commit listeners of each store.
        appender = PostgresGroupCommit(conninfo: conninfo) { entries, duration in
            follower.offer(byStore: entries)
            let heard = listeners.withLock { $0 }
            for (store, stored) in entries {
                for listener in heard[store] ?? [] { listener(stored.count, duration) }
            }
        }
        self.follower = follower
        commitListeners = listeners
        lookup = PostgresAnswerLookup(conninfo: conninfo)
    }

    /// Starts the appender's and the follower's threads once; false when they could not start.
    func startThreads() -> Bool {
        threads.withLock { started in
            if let started { return started }
            let launched = appender.start() && follower.start()
            started = launched
            return launched
        }
    }

    /// Adds a listener of `store`'s commits.
    func addCommitListener(of store: StoreID, _ listener: @escaping @Sendable (Int, Duration) -> Void) {
        commitListeners.withLock { $0[store, default: []].append(listener) }
    }

    /// Removes the listeners of `store`'s commits.
    func removeCommitListeners(of store: StoreID) {
        commitListeners.withLock { $0[store] = nil }
    }

    /// Whether ``stop()`` has not begun (a removal under way goes on while it is true).
    var isRunning: Bool { !maintenanceStopping.withLock { $0 } }

    /// Stops the threads and closes the connections: the appender appends what is queued first.
    func stop() {
        appender.stop()
        lookup.stop()
        follower.stop()
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
    /// the log, kept answers, the catalog). While the follower cannot reach the log (or has not
    /// yet, once started), it fails at once instead of connecting on the request's thread: a
    /// host that does not answer held each caller for the connect timeout, one after another on
    /// this connection's lock, until the HTTP workers were all waiting and `/healthz` went
    /// unanswered.
    func reading<Result>(_ body: (PostgresLog) throws(PostgresLogError) -> Result) throws(JournalError) -> Result {
        if threads.withLock({ $0 }) == true {
            switch follower.connectionStatus {
            case .unavailable(let reason):
                throw JournalError(code: .writeFailed, message: "the shared log cannot be reached now: \(reason)")
            case .connecting:
                throw JournalError(code: .writeFailed, message: "the shared log is not reached yet")
            default:
                break
            }
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

    /// Runs `body` on the maintenance connection, whose statements (lock waits included) are
    /// cancelled after `maintenanceTimeout`: a lock held elsewhere must not hold up a replica's
    /// renewals, its snapshots or its clean stop for ever. The connection is opened on first use
    /// and kept (registrations, renewals and removals would otherwise each open one, and check
    /// the schema, per snapshot and per renewal). One that PostgreSQL closed while it was idle
    /// (a restart) is opened again first; one that breaks during `body` without having shown it
    /// runs `body` again on a new one, so `body` must be safe to run twice, even after a
    /// `COMMIT` whose outcome was lost (registrations, forgetting and removals are). Once
    /// ``stop()`` began, each call opens a connection for itself.
    func maintaining<Result>(_ body: (PostgresLog) throws(PostgresLogError) -> Result) throws(JournalError) -> Result {
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

    /// The journal's view of a log error: unreachable → ``Journal/JournalErrorCode/writeFailed``
    /// (nothing stored, retry), a broken `COMMIT` → ``Journal/JournalErrorCode/outcomeUnknown``,
    /// a store that does not exist (deleted) → ``Journal/JournalErrorCode/closed``.
    static func journalError(_ error: PostgresLogError) -> JournalError {
        let code: JournalError.Code = switch error.code {
        case .unavailable, .queryFailed, .headMoved: .writeFailed
        case .commitOutcomeUnknown: .outcomeUnknown
        case .incompatibleSchema: .newerFormat
        case .corrupt: .corrupt
        case .closed, .storeNotFound: .closed
        }
        return JournalError(code: code, message: "shared log: \(error.message)")
    }
}
