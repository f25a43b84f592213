public import Journal
import ConcurrencyKit
internal import CPostgres
import DequeModule

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A replica's reader of the shared log: on its own thread, applies every entry with a version
/// greater than the last one applied, in order, in pages; then waits for the NOTIFY doorbell or
/// for the poll interval (NOTIFY is not replayed after a reconnect, so the poll is what
/// guarantees progress). While PostgreSQL is down it reports ``Status/unavailable(_:)`` and
/// reconnects with a doubling pause (50 ms to 2 s), then catches up by itself.
///
/// What this replica's own appender committed is handed over with ``offer(_:)``: those entries
/// are applied without reading them back (the read covers only the versions before them, which
/// other replicas committed), and a doorbell announcing a head already applied reads nothing.
///
/// `apply` runs on the follower's thread, one page at a time, oldest first. If it throws (a row
/// this build cannot decode) the follower stops there and reports why: it never skips a version.
public final class PostgresLogFollower: Sendable {
    /// Where the follower stands.
    public enum Status: Sendable, Equatable {
        /// Not connected yet.
        case connecting
        /// Connected; every entry up to the head read last has been applied.
        case following
        /// PostgreSQL cannot be reached; retrying. The message is PostgreSQL's.
        case unavailable(String)
        /// Stopped for good: by ``stop()``, or because an entry could not be applied (the reason).
        case stopped(String?)
    }

    private struct Waiter {
        let version: UInt64
        let deadline: ContinuousClock.Instant
        let callback: @Sendable (Bool) -> Void
    }

    private struct State {
        var applied: UInt64
        var status: Status = .connecting
        var stopping = false
        var finished = false
        /// Callbacks of ``whenApplied(_:timeout:_:)`` still waiting.
        var waiters: [Waiter] = []
        /// Entries committed by this replica, handed over by ``offer(_:)``, oldest first.
        var offered: Deque<LogEntry> = []
        /// The newest version known to be in the log.
        var knownHead: UInt64
    }

    /// The most offered entries kept while the thread does not take them (beyond, the oldest
    /// are dropped: they are read from the log instead).
    private static let offeredLimit = 65_536

    private let conninfo: String
    private let pageSize: Int
    private let pollInterval: Duration
    private let apply: @Sendable ([LogEntry]) throws -> Void
    private let verify: @Sendable (_ identity: String, _ head: UInt64) throws -> Void
    private let onStatus: @Sendable (Status) -> Void
    private let state: Lock<State>
    /// What ``offer(_:)`` rings to wake the thread from its wait for PostgreSQL's doorbell (nil if
    /// the system refused an eventfd: offers are then taken at the next doorbell or poll).
    private let wakeBell: Doorbell?

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - applied: the last version already applied (from a local snapshot, or 0).
    ///   - pageSize: the most entries read and applied at once.
    ///   - pollInterval: the longest wait for the doorbell before reading anyway.
    ///   - apply: applies a page of entries through the reducers; throws to stop the follower.
    ///   - onStatus: hears every change of ``status`` (for a log line), on the follower's thread.
    ///   - verify: hears the log's identity and head each time the follower connects, before it
    ///     reads; throws to stop the follower (the log is not the one this replica follows).
    public init(
        conninfo: String, applied: UInt64, pageSize: Int = 1_000, pollInterval: Duration = .seconds(1),
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void = { _, _ in },
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) {
        self.conninfo = conninfo
        self.pageSize = max(1, pageSize)
        self.pollInterval = pollInterval
        self.onStatus = onStatus
        self.verify = verify
        self.apply = apply
        state = Lock(State(applied: applied, knownHead: applied))
        wakeBell = try? Doorbell()
    }

    /// The last version applied.
    public var applied: UInt64 { state.withLock { $0.applied } }

    /// The newest version known to be in the log (announced by a doorbell, offered, or applied):
    /// `knownHead - applied` is how far this follower lags.
    public var knownHead: UInt64 { state.withLock { max($0.knownHead, $0.applied) } }

    /// Raises ``knownHead`` to `version`.
    private func learnHead(_ version: UInt64) {
        state.withLock { $0.knownHead = max($0.knownHead, version) }
    }

    /// Where the follower stands.
    public var status: Status { state.withLock { $0.status } }

    /// Starts the follower's thread; false if the system refused it.
    public func start() -> Bool {
        startDetachedThread(named: "log-follower") { [self] in
            run()
            state.withLock { $0.finished = true }
            state.notifyAll()
            answerWaiters()
        }
    }

    /// Waits until `version` is applied or `timeout` passes; true if it was.
    public func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool {
        state.wait(timeout: timeout) { $0.applied >= version || $0.finished }
            && applied >= version
    }

    /// Calls `callback(true)` once `version` is applied (at once if it is), or `callback(false)`
    /// when `timeout` passes first or the follower stops. The callback runs on the follower's
    /// thread (or the caller's): it must be quick.
    public func whenApplied(_ version: UInt64, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void) {
        let answer = state.withLock { state -> Bool? in
            if state.applied >= version { return true }
            if state.finished { return false }
            state.waiters.append(Waiter(version: version, deadline: .now + timeout, callback: callback))
            return nil
        }
        if let answer { callback(answer) }
    }

    /// Hands over entries this replica's appender committed (consecutive versions, as stored):
    /// the thread applies them without reading them back once every version before them is
    /// applied. Entries already applied are ignored.
    public func offer(_ entries: [LogEntry]) {
        guard !entries.isEmpty else { return }
        state.withLock { state in
            state.knownHead = max(state.knownHead, entries.last?.record.version ?? 0)
            state.offered.append(contentsOf: entries)
            if state.offered.count > Self.offeredLimit {
                state.offered.removeFirst(state.offered.count - Self.offeredLimit)
            }
        }
        wakeBell?.ring()
    }

    /// The offered entries that follow `applied` directly (dropping those already applied), and
    /// the first version offered beyond a gap, if any.
    private func takeOffered(after applied: UInt64) -> (entries: [LogEntry], nextOffered: UInt64?) {
        state.withLock { state in
            while let first = state.offered.first, first.record.version <= applied {
                state.offered.removeFirst()
            }
            guard let first = state.offered.first else { return ([], nil) }
            guard first.record.version == applied + 1 else { return ([], first.record.version) }
            var entries: [LogEntry] = []
            var expected = applied + 1
            while let next = state.offered.first, next.record.version == expected, entries.count < pageSize {
                entries.append(state.offered.removeFirst())
                expected += 1
            }
            return (entries, nil)
        }
    }

    private var hasOffers: Bool { state.withLock { !$0.offered.isEmpty } }

    /// Forgets every offered entry (they are read from the log instead).
    private func dropOffered() {
        state.withLock { $0.offered.removeAll() }
    }

    /// Answers the waiters whose version is applied (true) or whose deadline passed (false);
    /// all of them, false, once `finished`.
    private func answerWaiters() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [(Waiter, Bool)] in
            guard !state.waiters.isEmpty else { return [] }
            var due: [(Waiter, Bool)] = []
            state.waiters.removeAll { waiter in
                if waiter.version <= state.applied {
                    due.append((waiter, true))
                } else if state.finished || waiter.deadline <= now {
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

    /// Asks the thread to stop and waits for it (within about 200 ms, or a statement's duration).
    public func stop() {
        state.withLock { $0.stopping = true }
        state.notifyAll()
        _ = state.wait(timeout: .seconds(10)) { $0.finished }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func report(_ status: Status) {
        let changed = state.withLock { state -> Bool in
            defer { state.status = status }
            return state.status != status
        }
        state.notifyAll()
        if changed { onStatus(status) }
    }

    /// Waits for the doorbell, an offer or the poll interval, in slices short enough for
    /// ``stop()`` to be heard within 200 ms. Returns the version the log must be read up to:
    /// the head a doorbell announced, `.max` when unknown (a reconnect, the poll), nil when there
    /// is nothing to read — a doorbell for a head already applied (this replica's own append,
    /// offered), an offer (its entries are taken first; a read then covers only what comes
    /// before them).
    private func waitForDoorbell(_ listener: PostgresLogListener, applied: UInt64) throws(PostgresLogError) -> UInt64? {
        let deadline = ContinuousClock.now + pollInterval
        while !isStopping {
            // Checked on the state, not only through the eventfd: a wait that drains the eventfd
            // and a doorbell together reports the doorbell.
            if hasOffers { return nil }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .max }
            switch try listener.wait(upTo: min(remaining, .milliseconds(200)), wakeBell: wakeBell) {
            case .rang(let head?) where head <= applied:
                continue
            case .rang(let head?):
                learnHead(head)
                return head
            case .rang(nil), .reconnected:
                return .max
            case .woken:
                return nil
            case .timedOut:
                answerWaiters()
            }
        }
        return nil
    }

    private func run() {
        var log: PostgresLog?
        var listener: PostgresLogListener?
        var pause = Duration.milliseconds(50)
        var applied = self.applied
        // The version to read up to (`.max`: whatever is there); nil once caught up.
        var readUpTo: UInt64? = .max
        defer {
            log?.close()
            listener?.close()
        }
        while !isStopping {
            do {
                if log == nil {
                    let connected = try PostgresLog(conninfo: conninfo)
                    log = connected
                    // Every (re)connect: the head (what the lag is measured against while
                    // catching up) and whether this is still the log this replica follows.
                    let head = try connected.head()
                    learnHead(head)
                    do {
                        try verify(connected.identity, head)
                    } catch {
                        report(.stopped("\(error)"))
                        return
                    }
                }
                if listener == nil { listener = try PostgresLogListener(conninfo: conninfo) }
                guard let log, let listener else { continue }
                while !isStopping {
                    let (offered, nextOffered) = takeOffered(after: applied)
                    let page: [LogEntry]
                    if !offered.isEmpty {
                        page = offered
                    } else if let nextOffered {
                        // What other replicas committed before this replica's next append: all
                        // committed already (the head's lock orders commits), so a short read
                        // means the offer cannot be trusted; read everything from the log then.
                        let missing = Int(nextOffered - applied - 1)
                        page = try log.entries(after: applied, limit: min(pageSize, missing))
                        if page.count < min(pageSize, missing) {
                            dropOffered()
                            readUpTo = .max
                        }
                    } else if let target = readUpTo, applied < target {
                        page = try log.entries(after: applied, limit: pageSize)
                        // A short page reached the head as it was then: wait for the doorbell
                        // rather than ask again for nothing (under load that empty read doubled
                        // the queries).
                        if page.count < pageSize { readUpTo = nil }
                    } else {
                        break
                    }
                    guard let last = page.last else { continue }
                    do {
                        try apply(page)
                    } catch {
                        report(.stopped("applying version \(page[0].record.version)…\(last.record.version) failed: \(error)"))
                        return
                    }
                    applied = last.record.version
                    state.withLock { $0.applied = applied }
                    state.notifyAll()
                    answerWaiters()
                }
                report(.following)
                pause = .milliseconds(50)
                readUpTo = try waitForDoorbell(listener, applied: applied)
            } catch where error.code == .unavailable || error.code == .queryFailed {
                // queryFailed too: a server shutting down answers some statements with an error
                // before it closes the connection. Start over with fresh connections.
                log?.close()
                listener?.close()
                log = nil
                listener = nil
                readUpTo = .max
                report(.unavailable(error.message))
                answerWaiters()
                _ = state.wait(timeout: pause) { $0.stopping }
                pause = min(pause * 2, .seconds(2))
            } catch {
                report(.stopped(error.message))
                return
            }
        }
        report(.stopped(nil))
    }
}
