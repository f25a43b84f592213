public import Journal
import ConcurrencyKit

/// A replica's reader of the shared log: on its own thread, applies every entry with a version
/// greater than the last one applied, in order, in pages; then waits for the NOTIFY doorbell or
/// for the poll interval (NOTIFY is not replayed after a reconnect, so the poll is what
/// guarantees progress). While PostgreSQL is down it reports ``Status/unavailable(_:)`` and
/// reconnects with a doubling pause (50 ms to 2 s), then catches up by itself.
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
    }

    private let conninfo: String
    private let pageSize: Int
    private let pollInterval: Duration
    private let apply: @Sendable ([LogEntry]) throws -> Void
    private let onStatus: @Sendable (Status) -> Void
    private let state: Lock<State>

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - applied: the last version already applied (from a local snapshot, or 0).
    ///   - pageSize: the most entries read and applied at once.
    ///   - pollInterval: the longest wait for the doorbell before reading anyway.
    ///   - apply: applies a page of entries through the reducers; throws to stop the follower.
    ///   - onStatus: hears every change of ``status`` (for a log line), on the follower's thread.
    public init(
        conninfo: String, applied: UInt64, pageSize: Int = 1_000, pollInterval: Duration = .seconds(1),
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) {
        self.conninfo = conninfo
        self.pageSize = max(1, pageSize)
        self.pollInterval = pollInterval
        self.onStatus = onStatus
        self.apply = apply
        state = Lock(State(applied: applied))
    }

    /// The last version applied.
    public var applied: UInt64 { state.withLock { $0.applied } }

    /// Where the follower stands.
    public var status: Status { state.withLock { $0.status } }

    /// Starts the follower's thread; false if the system refused it.
    public func start() -> Bool {
        startDetachedThread { [self] in
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

    /// Waits for the doorbell or the poll interval, in slices short enough for ``stop()`` to be
    /// heard within 200 ms.
    private func waitForDoorbell(_ listener: PostgresLogListener) throws(PostgresLogError) {
        let deadline = ContinuousClock.now + pollInterval
        while !isStopping {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return }
            if try listener.wait(upTo: min(remaining, .milliseconds(200))) { return }
            answerWaiters()
        }
    }

    private func run() {
        var log: PostgresLog?
        var listener: PostgresLogListener?
        var pause = Duration.milliseconds(50)
        var applied = self.applied
        defer {
            log?.close()
            listener?.close()
        }
        while !isStopping {
            do {
                if log == nil { log = try PostgresLog(conninfo: conninfo) }
                if listener == nil { listener = try PostgresLogListener(conninfo: conninfo) }
                guard let log, let listener else { continue }
                while !isStopping {
                    let page = try log.entries(after: applied, limit: pageSize)
                    guard let last = page.last else { break }
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
                    // A short page reached the head as it was then: wait for the doorbell rather
                    // than ask again for nothing (under load that empty read doubled the queries).
                    if page.count < pageSize { break }
                }
                report(.following)
                pause = .milliseconds(50)
                try waitForDoorbell(listener)
            } catch where error.code == .unavailable || error.code == .queryFailed {
                // queryFailed too: a server shutting down answers some statements with an error
                // before it closes the connection. Start over with fresh connections.
                log?.close()
                listener?.close()
                log = nil
                listener = nil
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
