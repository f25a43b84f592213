import Journal
import ConcurrencyKit

/// Looks up the idempotency answers of a replica's keyed requests without blocking the threads
/// that serve HTTP: the keys queued while a lookup runs go together in the next one (one query,
/// ``PostgresLog/answers(forKeys:)``), on one thread with one connection, started on first use.
///
/// Every keyed request must look its key up before middleware runs (a retry must run nothing);
/// done on the request's thread, one query at a time on one connection, that lookup was the
/// bottleneck of keyed writes (`docs/replicas.md`, Measured).
final class PostgresAnswerLookup: Sendable {
    typealias Completion = @Sendable (Result<KeptAnswer?, PostgresLogError>) -> Void

    private struct Queued {
        let key: StoreKey
        let completion: Completion
    }

    private struct State {
        var queued: [Queued] = []
        /// The thread was asked for (by the first lookup).
        var started = false
        /// The system refused the thread: every lookup fails.
        var refused = false
        var stopping = false
    }

    private let conninfo: String
    private let maxKeys: Int
    private let state: Lock<State>
    /// The lookup thread; a stop marks the state stopping, which ends its wait once nothing is
    /// queued.
    private let worker: Worker

    /// - Parameters:
    ///   - conninfo: the PostgreSQL connection string.
    ///   - maxKeys: the most keys in one query.
    init(conninfo: String, maxKeys: Int = 512) {
        self.conninfo = conninfo
        self.maxKeys = max(1, maxKeys)
        let state = Lock(State())
        self.state = state
        worker = Worker(named: "key-lookup") {
            state.withLock { $0.stopping = true }
            state.notifyAll()
        }
    }

    /// Queues `key`; `completion` hears its kept answer (nil: none), on the lookup thread. After
    /// ``stop()``, or when the thread cannot start, it is answered at once with the error.
    func lookUp(_ key: String, in store: StoreID = .default, completion: @escaping Completion) {
        let start = state.withLock { state -> Result<Bool, PostgresLogError> in
            guard !state.stopping else { return .failure(Self.stopping) }
            guard !state.refused else { return .failure(Self.refused) }
            state.queued.append(Queued(key: StoreKey(store: store, key: key), completion: completion))
            defer { state.started = true }
            return .success(!state.started)
        }
        switch start {
        case .failure(let error):
            completion(.failure(error))
        case .success(true):
            do {
                try worker.start { [self] _ in run() }
            } catch {
                let queued = state.withLock { state -> [Queued] in
                    state.refused = true
                    defer { state.queued = [] }
                    return state.queued
                }
                for entry in queued { entry.completion(.failure(Self.refused)) }
            }
        case .success(false):
            state.notifyAll()
        }
    }

    /// Answers what is queued, then ends the thread and waits for it (30 s at most: a lookup stuck
    /// on the network is left running, see ``stop(timeout:)``).
    func stop() {
        try? stop(timeout: .seconds(30))
    }

    /// ``stop()``, waiting at most `timeout` for the thread; throws
    /// ``WorkerError/Code/stopTimedOut`` when it has not ended by then.
    func stop(timeout: Duration) throws(WorkerError) {
        try worker.stop(timeout: timeout)
        // A lookup queued while the thread was starting, when the stop came first (the worker
        // then never runs): answered rather than left waiting.
        let unanswered = state.withLock { state -> [Queued] in
            defer { state.queued = [] }
            return state.queued
        }
        for entry in unanswered { entry.completion(.failure(Self.stopping)) }
    }

    /// Whether the lookup thread runs (started by a lookup, not ended).
    var isThreadRunning: Bool { worker.isRunning }

    private static let stopping = PostgresLogError(code: .closed, message: "the PostgreSQL log is stopping")
    private static let refused = PostgresLogError(code: .unavailable, message: "could not start the thread that looks up idempotency keys")

    private func run() {
        var log: PostgresLog?
        defer { log?.close() }
        while true {
            let batch = state.withLock(waitingUntil: { !$0.queued.isEmpty || $0.stopping }) { state -> [Queued] in
                let count = min(state.queued.count, maxKeys)
                defer { state.queued.removeFirst(count) }
                return Array(state.queued.prefix(count))
            }
            if batch.isEmpty { return }  // stopping, and nothing left
            do throws(PostgresLogError) {
                if log == nil {
                    let opened = try PostgresLog(conninfo: conninfo)
                    log = opened
                    try opened.planEachExecution()
                }
                guard let open = log else { continue }
                try open.reconnectIfTerminated()
                let answers = try open.answers(forKeys: Array(Set(batch.map(\.key))))
                for entry in batch { entry.completion(.success(answers[entry.key])) }
            } catch {
                // The request answers 503; the next lookup reconnects.
                if error.code == .unavailable {
                    log?.close()
                    log = nil
                }
                for entry in batch { entry.completion(.failure(error)) }
            }
        }
    }
}
