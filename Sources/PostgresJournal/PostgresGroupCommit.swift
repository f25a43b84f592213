public import Journal
package import ConcurrencyKit
import DequeModule

/// The appending side of a replica: groups submitted from any thread, to any stores, queue up
/// while an append runs and go together in the next one (one transaction, one round trip,
/// ``PostgresLog/append(_:)-([StoreLogGroup])``: each group checked against its own store's
/// head), on one thread with one connection. One commit costs about as much for 64 actions as for one
/// (`docs/replicas.md`, Measured), so under load the batch grows by itself.
///
/// Requests come back in bursts (a batch's clients are answered together and send their next
/// requests together), and an append that started on the first of a burst would leave the rest
/// for the next transaction. So once woken, the thread waits up to ``gatherWindow`` for as many
/// groups as the last batch held before it appends: the batch stays as large as the load is,
/// without a delay when requests come one at a time (the last batch held one).
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
        let group: StoreLogGroup
        let completion: Completion
    }

    private struct State {
        var pending: Deque<Submitted> = []
        var failure: PostgresLogError?
        var stopping = false
        var commits: UInt64 = 0
        var groups: UInt64 = 0
        /// How many groups the thread gathers before it appends: the size of the last batch.
        var gatherTarget = 1
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
    /// The longest wait for a batch as large as the last one, from the first group queued.
    public let gatherWindow: Duration
    private let onAppended: @Sendable ([StoreID: [LogEntry]], Duration) -> Void
    private let state: Lock<State>
    /// The commit thread; a stop marks the state stopping, which ends its waits.
    private let worker: Worker

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - maxGroups: the most groups in one transaction.
    ///   - gatherWindow: the longest wait for a batch as large as the last one (zero: append
    ///     whatever is queued at once).
    ///   - onAppended: hears the entries of every transaction committed, as stored, by store,
    ///     and how long the append took, before the completions do (a replica's follower applies
    ///     them without reading them back; metrics count them).
    public init(
        conninfo: String, maxGroups: Int = 1_024, gatherWindow: Duration = .milliseconds(1),
        onAppended: @escaping @Sendable ([StoreID: [LogEntry]], Duration) -> Void = { _, _ in }
    ) {
        self.conninfo = conninfo
        self.maxGroups = max(1, maxGroups)
        self.gatherWindow = max(.zero, gatherWindow)
        self.onAppended = onAppended
        let state = Lock(State())
        self.state = state
        worker = Worker(named: "log-append") {
            state.withLock { $0.stopping = true }
            state.notifyAll()
        }
    }

    /// Why the last append failed, while appends fail (cleared by the next one that succeeds).
    public var failure: PostgresLogError? { state.withLock { $0.failure } }

    /// Transactions and groups committed so far.
    public var statistics: Statistics {
        state.withLock { Statistics(commits: $0.commits, groups: $0.groups) }
    }

    /// Starts the commit thread; false if the system refused it or the appender was stopped.
    public func start() -> Bool {
        guard !state.withLock({ $0.stopping }) else { return false }
        do {
            try worker.start { [self] _ in run() }
            return true
        } catch {
            return false
        }
    }

    /// Queues `group` for `store` (at least one action, or an answer to keep), meant for the
    /// store's incarnation `incarnation` (nil: any; ``StoreLogGroup/incarnation``); `completion`
    /// hears its outcome. After ``stop()`` it is answered at once with ``PostgresLogError/Code/closed``.
    public func submit(_ group: LogGroup, to store: StoreID = .default, incarnation: String? = nil, completion: @escaping Completion) {
        let accepted = state.withLock { state -> Bool? in
            guard !state.stopping else { return nil }
            state.pending.append(Submitted(group: StoreLogGroup(group, to: store, incarnation: incarnation), completion: completion))
            // Wake the thread only when it has something to do: the first group (it may be
            // idle), or the batch it gathers is complete. Other wake-ups would cost a context
            // switch per request for nothing.
            return state.pending.count == 1 || state.pending.count >= state.gatherTarget
        }
        guard let accepted else {
            completion(.failure(PostgresLogError(code: .closed, message: "the PostgreSQL log is stopping")))
            return
        }
        if accepted { state.notifyAll() }
    }

    /// Appends what is queued, then ends the thread and waits for it (30 s at most: an append
    /// stuck on the network is left running, see ``stop(timeout:)``). Never started: answers what
    /// is queued with ``PostgresLogError/Code/closed`` at once.
    public func stop() {
        try? stop(timeout: .seconds(30))
    }

    /// ``stop()``, waiting at most `timeout` for the thread; throws
    /// ``WorkerError/Code/stopTimedOut`` when it has not ended by then.
    package func stop(timeout: Duration) throws(WorkerError) {
        try worker.stop(timeout: timeout)
        // Groups the thread did not take: it never started (or the stop came before it did).
        let unsent = state.withLock { state -> Deque<Submitted> in
            defer { state.pending = [] }
            return state.pending
        }
        let closed = PostgresLogError(code: .closed, message: "the PostgreSQL log was stopped before it started")
        for submitted in unsent { submitted.completion(.failure(closed)) }
    }

    /// Whether the commit thread runs (started, not ended).
    package var isThreadRunning: Bool { worker.isRunning }

    /// The entries `groups` became, as stored, by store: the actions of each appended group with
    /// their versions, the idempotency key on a group's last row.
    static func entries(of groups: [StoreLogGroup], outcomes: [LogGroupOutcome]) -> [StoreID: [LogEntry]] {
        var entries: [StoreID: [LogEntry]] = [:]
        for (item, outcome) in zip(groups, outcomes) {
            let group = item.group
            guard case .appended(let versions) = outcome, versions.count == group.actions.count else { continue }
            for (version, action) in zip(versions, group.actions) {
                entries[item.store, default: []].append(LogEntry(
                    record: JournalRecord(version: version, type: action.type, payload: action.payload, time: action.time),
                    idempotencyKey: version == versions.upperBound ? group.answer?.key : nil
                ))
            }
        }
        return entries
    }

    private func run() {
        var log: PostgresLog?
        var pause = Duration.milliseconds(50)
        defer { log?.close() }
        while true {
            state.withLock(waitingUntil: { !$0.pending.isEmpty || $0.stopping }) { _ in }
            let batch = state.withLock(
                waitingUntil: { $0.pending.count >= min($0.gatherTarget, self.maxGroups) || $0.stopping },
                timeout: gatherWindow
            ) { state, _ -> [Submitted] in
                let count = min(state.pending.count, maxGroups)
                defer { state.pending.removeFirst(count) }
                state.gatherTarget = max(1, count)
                return Array(state.pending.prefix(count))
            }
            if batch.isEmpty { return }  // stopping, and nothing left
            let failure: PostgresLogError?
            do {
                if log == nil {
                    let opened = try PostgresLog(conninfo: conninfo)
                    log = opened
                    // The checked path's statements too (the function sets it for itself).
                    try opened.findRowsThroughIndexes()
                }
                guard let log else { continue }
                let groups = batch.map(\.group).filter { !$0.group.isEmpty }
                let started = ContinuousClock.now
                let results = try log.appendEach(groups)
                failure = answer(batch, groups: groups, with: results, took: ContinuousClock.now - started)
            } catch {
                state.withLock { $0.failure = error }
                for submitted in batch { submitted.completion(.failure(error)) }
                failure = error
            }
            if let failure, failure.breaksTheConnection {
                log?.close()
                log = nil
                _ = state.wait(timeout: pause) { $0.stopping }
                pause = min(pause * 2, .seconds(2))
            } else if failure == nil {
                pause = .milliseconds(50)
            }
        }
    }

    /// Answers each group of `batch` with its result (`groups`: the batch's non-empty groups,
    /// `results` theirs, in order) after ``onAppended`` heard the stored ones; returns the first
    /// failure, if any. A group appended alone (the batch's data refused) keeps its outcome when
    /// the connection broke on a group after it: only the groups not stored fail.
    private func answer(
        _ batch: [Submitted], groups: [StoreLogGroup], with results: [Result<LogGroupOutcome, PostgresLogError>], took duration: Duration
    ) -> PostgresLogError? {
        var decided: [(group: StoreLogGroup, outcome: LogGroupOutcome)] = []
        var failure: PostgresLogError?
        for (group, result) in zip(groups, results) {
            switch result {
            case .success(let outcome): decided.append((group, outcome))
            case .failure(let error): failure = failure ?? error
            }
        }
        state.withLock {
            $0.failure = failure
            if !decided.isEmpty {
                $0.commits += 1
                $0.groups += UInt64(decided.count)
            }
        }
        onAppended(Self.entries(of: decided.map(\.group), outcomes: decided.map(\.outcome)), duration)
        var next = results.makeIterator()
        for submitted in batch {
            if submitted.group.group.isEmpty {
                submitted.completion(.failure(PostgresLogError(code: .queryFailed, message: "a group needs at least one action or an answer to keep")))
            } else if let result = next.next() {
                submitted.completion(result)
            }
        }
        return failure
    }
}
