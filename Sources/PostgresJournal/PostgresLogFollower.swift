public import Journal
package import ConcurrencyKit
import DequeModule

/// A replica's reader of the shared log, for every store it follows: one thread, one connection
/// and one `LISTEN` per process, whatever the number of stores. For each followed store
/// (``follow(_:applied:onStatus:verify:apply:)``) it applies every entry with a version greater
/// than the last one applied, in order, in pages; then waits for the NOTIFY doorbell, which names
/// the stores appended to and their new heads (``PostgresLogDoorbell``), or for the poll interval
/// (NOTIFY is not replayed after a reconnect, so the poll — one read of every followed store's
/// head — is what guarantees progress). Stores behind are read together, one query for all of
/// them (``PostgresLog/entries(after:limit:)``). While PostgreSQL is down every store reports
/// ``Status/unavailable(_:)`` and the thread reconnects with a doubling pause (50 ms to 2 s),
/// then catches up by itself. A store that is not followed is not read at all: a replica holds
/// in memory only the stores it loaded (`docs/replicas.md`, "Many stores").
///
/// What this replica's own appender committed is handed over with ``offer(_:entries:)``: those
/// entries are applied without reading them back (the read covers only the versions before them,
/// which other replicas committed), and a doorbell announcing a head already applied reads
/// nothing.
///
/// `apply` runs on the follower's thread, one page of one store at a time, oldest first. If it
/// throws (a row this build cannot decode) that store stops there and reports why: it never
/// skips a version. So does a store whose versions have a gap (its records removed by retention:
/// read with other stores in one query, the gap stops that store alone). A store deleted while
/// followed stops too, saying so; rows a doorbell rings are applied only to the incarnation of
/// the store followed (``PostgresLogDoorbell/incarnations``).
public final class PostgresLogFollower: Sendable {
    /// Where the follower stands, for one store.
    public enum Status: Sendable, Equatable {
        /// Not connected yet, or catching up with the store's head.
        case connecting
        /// Connected; every entry of the store up to the head read last has been applied.
        case following
        /// PostgreSQL cannot be reached; retrying. The message is PostgreSQL's.
        case unavailable(String)
        /// Stopped for good: by ``stop()``, or because an entry could not be applied, or the store
        /// was deleted (the reason).
        case stopped(String?)
    }

    /// The most offered entries kept per store while the thread does not take them (beyond, the
    /// oldest are dropped: they are read from the log instead).
    static let offeredLimit = 65_536

    let conninfo: String
    let pageSize: Int
    let pollInterval: Duration
    let state: Lock<FollowerState>
    /// What ``offer(_:entries:)`` and ``follow(_:applied:onStatus:verify:apply:)`` ring to wake the
    /// thread from its wait for PostgreSQL's doorbell (nil if the system refused an eventfd: the
    /// work is then taken at the next doorbell or poll).
    let wakeBell: Doorbell?
    /// The follower's thread; a stop marks the state stopping and rings ``wakeBell``, so that the
    /// wait for PostgreSQL's doorbell ends at once.
    private let worker: Worker

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - pageSize: the most entries of one store read and applied at once.
    ///   - pollInterval: the longest wait for the doorbell before reading every head anyway.
    public init(conninfo: String, pageSize: Int = 1_000, pollInterval: Duration = .seconds(1)) {
        self.conninfo = conninfo
        self.pageSize = max(1, pageSize)
        self.pollInterval = pollInterval
        let state = Lock(FollowerState())
        let wakeBell = try? Doorbell()
        self.state = state
        self.wakeBell = wakeBell
        worker = Worker(named: "log-follower") {
            state.withLock { $0.stopping = true }
            state.notifyAll()
            wakeBell?.ring()
        }
    }

    /// Follows `store` from `applied` (the last version already applied: from a local snapshot,
    /// or 0), replacing a following of it under way (whose waiters hear false).
    /// - Parameters:
    ///   - apply: applies a page of the store's entries through its reducers, on the follower's
    ///     thread; throws to stop following the store.
    ///   - onStatus: hears every change of the store's ``status(of:)`` (for a log line).
    ///   - verify: hears the store's incarnation (``Journal/StoreDescription/incarnation``; the
    ///     store `default`'s is the log's identity) and head each time the follower connects
    ///     (and when the store is followed), before it reads; throws to stop following the store
    ///     (the log is not the one the replica follows).
    public func follow(
        _ store: StoreID, applied: UInt64,
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        verify: @escaping @Sendable (_ incarnation: String, _ head: UInt64) throws -> Void = { _, _ in },
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) {
        let followed = FollowedStore(applied: applied, apply: apply, verify: verify, onStatus: onStatus)
        state.withLock { state in
            state.generation += 1
            followed.generation = state.generation
            state.stores[store] = followed
            state.headsToRead.insert(store)
        }
        state.notifyAll()
        answerWaiters()
        wakeBell?.ring()
    }

    /// Stops following `store`: its entries are no longer read (a page being applied finishes);
    /// its waiters hear false.
    public func unfollow(_ store: StoreID) {
        state.withLock { state in
            state.stores[store] = nil
            state.headsToRead.remove(store)
        }
        state.notifyAll()
        answerWaiters()
    }

    /// Whether `store` is followed.
    public func isFollowing(_ store: StoreID) -> Bool { state.withLock { $0.stores[store] != nil } }

    /// The stores followed.
    public var followedStores: [StoreID] { state.withLock { Array($0.stores.keys) } }

    /// The incarnation of `store` this follower applies (the first its head row showed once
    /// followed; nil before, or when the store is not followed): what this replica's appends to
    /// the store state (``StoreLogGroup/incarnation``).
    public func incarnation(of store: StoreID) -> String? { state.withLock { $0.stores[store]?.incarnation } }

    /// The last version of `store` applied (0 when it is not followed).
    public func applied(of store: StoreID) -> UInt64 { state.withLock { $0.stores[store]?.applied ?? 0 } }

    /// The newest version of `store` known to be in the log (announced by a doorbell, offered,
    /// read, or applied): `knownHead - applied` is how far this follower lags on it.
    public func knownHead(of store: StoreID) -> UInt64 {
        state.withLock { state in state.stores[store].map { max($0.knownHead, $0.applied) } ?? 0 }
    }

    /// Where the follower stands for `store`; ``Status/stopped(_:)`` when it is not followed.
    public func status(of store: StoreID) -> Status {
        state.withLock { $0.status(of: store) }
    }

    /// Starts the follower's thread; false if the system refused it or the follower was stopped.
    public func start() -> Bool {
        guard !isStopping else { return false }
        do {
            try worker.start { [self] _ in
                run()
                finish()
            }
            return true
        } catch {
            return false
        }
    }

    /// Waits until `version` of `store` is applied or `timeout` passes; true if it was.
    public func waitUntilApplied(_ version: UInt64, of store: StoreID, timeout: Duration) -> Bool {
        _ = state.wait(timeout: timeout) { state in
            guard let followed = state.stores[store] else { return true }
            return followed.applied >= version || followed.stopReason != nil || state.finished
        }
        return state.withLock { ($0.stores[store]?.applied ?? 0) >= version }
    }

    /// Calls `callback(true)` once `version` of `store` is applied (at once if it is), or
    /// `callback(false)` when `timeout` passes first, the store stops or is no longer followed, or
    /// the follower stops. The callback runs on the follower's thread (or the caller's): it must
    /// be quick.
    public func whenApplied(_ version: UInt64, of store: StoreID, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void) {
        let answer = state.withLock { state -> Bool? in
            guard let followed = state.stores[store] else { return false }
            if followed.applied >= version { return true }
            if state.finished || followed.stopReason != nil { return false }
            state.waiters.append(FollowerWaiter(store: store, version: version, deadline: .now + timeout, callback: callback))
            return nil
        }
        if let answer { callback(answer) }
    }

    /// Hands over entries of `store` this replica's appender committed (consecutive versions, as
    /// stored): the thread applies them without reading them back once every version before them
    /// is applied. Entries already applied, and entries of stores not followed, are ignored.
    public func offer(_ store: StoreID, entries: [LogEntry]) {
        offer(byStore: [store: entries])
    }

    /// ``offer(_:entries:)`` of the entries of several stores (an append's), in one lock and with
    /// one wake-up of the thread: an append carries ~20 stores' entries when 1,000 stores are
    /// written.
    public func offer(byStore entries: [StoreID: [LogEntry]]) {
        let followed = state.withLock { state -> Bool in
            var followed = false
            for (store, stored) in entries {
                guard let last = stored.last?.record.version else { continue }
                // In place: the store's entry is neither copied nor moved.
                guard state.stores[store]?.offer(stored, last: last, keeping: Self.offeredLimit) != nil else { continue }
                state.mayBeBehind.insert(store)
                followed = true
            }
            return followed
        }
        if followed { wakeBell?.ring() }
    }

    /// Asks the thread to stop and waits for it (it hears the stop at once, unless a statement
    /// runs: then when that ends, 10 s at most; a thread still running then is left running, see
    /// ``stop(timeout:)``).
    public func stop() {
        try? stop(timeout: .seconds(10))
    }

    /// ``stop()``, waiting at most `timeout` for the thread; throws
    /// ``WorkerError/Code/stopTimedOut`` when it has not ended by then.
    package func stop(timeout: Duration) throws(WorkerError) {
        try worker.stop(timeout: timeout)
        finish()  // the thread did, unless it never started
    }

    /// Whether the follower's thread runs (started, not ended).
    package var isThreadRunning: Bool { worker.isRunning }

    /// Marks the follower finished: every waiter hears false, every store its last status.
    private func finish() {
        state.withLock { $0.finished = true }
        state.notifyAll()
        answerWaiters()
        reportStatuses(of: nil)
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Answers the waiters whose version is applied (true) or whose deadline passed, whose store
    /// stopped or is no longer followed (false); all of them, false, once the thread finished.
    func answerWaiters() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [(FollowerWaiter, Bool)] in
            guard !state.waiters.isEmpty else { return [] }
            var due: [(FollowerWaiter, Bool)] = []
            state.waiters.removeAll { waiter in
                let followed = state.stores[waiter.store]
                if let followed, waiter.version <= followed.applied {
                    due.append((waiter, true))
                } else if state.finished || followed == nil || followed?.stopReason != nil || waiter.deadline <= now {
                    due.append((waiter, false))
                } else {
                    return false
                }
                return true
            }
            return due
        }
        for (waiter, applied) in due { waiter.callback(applied) }
    }

    /// Tells the stores `stores` (nil: every store) their status, where it changed since last told.
    func reportStatuses(of stores: [StoreID]?) {
        let changed = state.withLock { state -> [(@Sendable (Status) -> Void, Status)] in
            var changed: [(@Sendable (Status) -> Void, Status)] = []
            for store in stores ?? Array(state.stores.keys) {
                guard let followed = state.stores[store] else { continue }
                let status = state.status(of: store)
                guard followed.reported != status else { continue }
                followed.reported = status
                changed.append((followed.onStatus, status))
            }
            return changed
        }
        state.notifyAll()
        for (onStatus, status) in changed { onStatus(status) }
    }
}

extension PostgresLogFollower {
    /// The connection's state, whatever the stores: ``Status/connecting`` before the first
    /// connection, ``Status/following`` while connected, ``Status/unavailable(_:)`` while
    /// PostgreSQL cannot be reached, ``Status/stopped(_:)`` once the thread ended.
    public var connectionStatus: Status { state.withLock { $0.connection } }
}
