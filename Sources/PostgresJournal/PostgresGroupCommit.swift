public import Journal
import ConcurrencyKit
import DequeModule

/// The appending side of a replica: groups submitted from any thread queue up while an append
/// runs and go together in the next one (one transaction, ``PostgresLog/append(_:)``), on one
/// thread with one connection. One commit costs about as much for 64 actions as for one
/// (`docs/replicas.md`, Measured), so under load the batch grows by itself.
///
/// Nothing is reduced before its append (the database assigns versions), so when PostgreSQL is
/// unreachable the groups of the failed append are answered with the error at once (the request
/// answers 503 and the client retries) rather than kept; ``failure`` says so until an append
/// succeeds, and the thread reconnects with a doubling pause (50 ms to 2 s) before the next one.
public final class PostgresGroupCommit: Sendable {
    /// Called on the commit thread with what became of a group, or why it could not be appended
    /// (``PostgresLogError/Code/commitOutcomeUnknown``: it may be stored).
    public typealias Completion = @Sendable (Result<LogGroupOutcome, PostgresLogError>) -> Void

    private struct Submitted {
        let group: LogGroup
        let completion: Completion
    }

    private struct State {
        var pending: Deque<Submitted> = []
        var failure: PostgresLogError?
        var stopping = false
        var finished = false
        var commits: UInt64 = 0
        var groups: UInt64 = 0
    }

    /// Counters for benchmarks and logs.
    public struct Statistics: Sendable, Equatable {
        /// Transactions committed.
        public var commits: UInt64
        /// Groups appended by them.
        public var groups: UInt64
    }

    private let conninfo: String
    private let maxGroups: Int
    private let state = Lock(State())

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - maxGroups: the most groups in one transaction.
    public init(conninfo: String, maxGroups: Int = 1_024) {
        self.conninfo = conninfo
        self.maxGroups = max(1, maxGroups)
    }

    /// Why the last append failed, while appends fail (cleared by the next one that succeeds).
    public var failure: PostgresLogError? { state.withLock { $0.failure } }

    /// Transactions and groups committed so far.
    public var statistics: Statistics {
        state.withLock { Statistics(commits: $0.commits, groups: $0.groups) }
    }

    /// Starts the commit thread; false if the system refused it.
    public func start() -> Bool {
        startDetachedThread { [self] in
            run()
            state.withLock { $0.finished = true }
            state.notifyAll()
        }
    }

    /// Queues `group` (at least one action); `completion` hears its outcome. After ``stop()`` it
    /// is answered at once with ``PostgresLogError/Code/closed``.
    public func submit(_ group: LogGroup, completion: @escaping Completion) {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.pending.append(Submitted(group: group, completion: completion))
            return true
        }
        guard accepted else {
            completion(.failure(PostgresLogError(code: .closed, message: "the PostgreSQL log is stopping")))
            return
        }
        state.notifyAll()
    }

    /// Appends what is queued, then ends the thread and waits for it.
    public func stop() {
        state.withLock { $0.stopping = true }
        state.notifyAll()
        _ = state.wait(timeout: .seconds(30)) { $0.finished }
    }

    private func run() {
        var log: PostgresLog?
        var pause = Duration.milliseconds(50)
        defer { log?.close() }
        while true {
            let batch = state.withLock(waitingUntil: { !$0.pending.isEmpty || $0.stopping }) { state -> [Submitted] in
                let count = min(state.pending.count, maxGroups)
                defer { state.pending.removeFirst(count) }
                return Array(state.pending.prefix(count))
            }
            if batch.isEmpty { return }  // stopping, and nothing left
            do {
                if log == nil { log = try PostgresLog(conninfo: conninfo) }
                guard let log else { continue }
                let groups = batch.map(\.group).filter { !$0.actions.isEmpty }
                let outcomes = try log.append(groups)
                state.withLock {
                    $0.failure = nil
                    $0.commits += 1
                    $0.groups += UInt64(groups.count)
                }
                var next = outcomes.makeIterator()
                for submitted in batch {
                    if submitted.group.actions.isEmpty {
                        submitted.completion(.failure(PostgresLogError(code: .queryFailed, message: "a group needs at least one action")))
                    } else if let outcome = next.next() {
                        submitted.completion(.success(outcome))
                    }
                }
                pause = .milliseconds(50)
            } catch {
                state.withLock { $0.failure = error }
                for submitted in batch { submitted.completion(.failure(error)) }
                if error.code == .unavailable || error.code == .commitOutcomeUnknown {
                    log?.close()
                    log = nil
                    _ = state.wait(timeout: pause) { $0.stopping }
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }
    }
}
