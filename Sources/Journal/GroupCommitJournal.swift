import ConcurrencyKit
import DequeModule

/// The journal thread: records queue up while a commit runs and go together in the next one
/// (group commit), then everyone waiting for a version it covered is released.
///
/// One fsync costs about as much for one record as for a thousand (measured here: SQLite in WAL
/// mode with `synchronous=FULL` commits ~6k single-row transactions/s but ~230k rows/s in
/// 64-row ones), so under load the batch grows by itself and throughput follows the disk's
/// bandwidth instead of its fsync latency.
///
/// When a commit fails (disk full, I/O error) its waiters get the error, the records stay queued
/// (never dropped: the store already holds them in memory) and the thread retries with a growing
/// pause; ``failure`` tells the server to refuse new actions meanwhile. A record whose version
/// does not follow the previous one would leave a gap: the journal then refuses everything.
public final class GroupCommitJournal: Sendable {
    /// Called once a version (and every one before it) is durable, or with the error that kept it
    /// from being so.
    public typealias Completion = @Sendable (Result<UInt64, JournalError>) -> Void

    private struct Waiter {
        let version: UInt64
        let completion: Completion
    }

    private struct State {
        var pending: Deque<JournalRecord> = []
        var lastQueuedVersion: UInt64
        var durableVersion: UInt64
        var waiters: [Waiter] = []
        var failure: JournalError?
        /// Set for good when a record would have left a gap.
        var broken: JournalError?
        var started = false
        var stopping = false
        var finished = false
        var commits: UInt64 = 0
        var committedRecords: UInt64 = 0
    }

    /// Counters for benchmarks and logs.
    public struct Statistics: Sendable, Equatable {
        /// Transactions committed.
        public var commits: UInt64
        /// Records committed.
        public var records: UInt64
    }

    private let storage: any JournalStorage
    private let maxGroup: Int
    private let state: Lock<State>
    private let durableListeners = Lock<[@Sendable (UInt64) -> Void]>([])

    /// - Parameters:
    ///   - storage: where records go.
    ///   - lastVersion: the newest version the storage holds (from ``JournalStorage/recover()``).
    ///   - maxGroup: the most records in one transaction.
    public init(storage: any JournalStorage, lastVersion: UInt64, maxGroup: Int = 8_192) {
        self.storage = storage
        self.maxGroup = max(1, maxGroup)
        state = Lock(State(lastQueuedVersion: lastVersion, durableVersion: lastVersion))
    }

    /// The newest version known durable.
    public var durableVersion: UInt64 {
        state.withLock { $0.durableVersion }
    }

    /// Why the last commit failed, while commits fail (cleared by the next one that succeeds).
    public var failure: JournalError? {
        state.withLock { $0.broken ?? $0.failure }
    }

    public var statistics: Statistics {
        state.withLock { Statistics(commits: $0.commits, records: $0.committedRecords) }
    }

    /// Calls `listener` on the journal thread after every commit, with the newest durable version.
    /// Add listeners before ``start()``.
    public func onDurable(_ listener: @escaping @Sendable (UInt64) -> Void) {
        durableListeners.withLock { $0.append(listener) }
    }

    /// Starts the journal thread; false if the system refused it.
    public func start() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard claimed else { return true }
        guard startDetachedThread({ [self] in run() }) else {
            state.withLock { $0.finished = true }
            return false
        }
        return true
    }

    /// Queues `record`, whose version must follow the previous one's. Cheap: the store's
    /// processing thread calls it for every reduce.
    public func append(_ record: JournalRecord) {
        let (wake, abandoned) = state.withLock { state -> (Bool, [Waiter]) in
            guard state.broken == nil, !state.finished else { return (false, []) }
            guard record.version == state.lastQueuedVersion + 1 else {
                state.broken = JournalError(
                    code: .corrupt,
                    message: "journal refused version \(record.version) after \(state.lastQueuedVersion): it would leave a gap; no action is journaled from now on"
                )
                defer { state.waiters = [] }
                return (false, state.waiters)
            }
            state.lastQueuedVersion = record.version
            state.pending.append(record)
            return (state.pending.count == 1, [])
        }
        if wake { state.notifyAll() }
        if let broken = failure {
            for waiter in abandoned { waiter.completion(.failure(broken)) }
        }
    }

    /// Calls `completion` once `version` is durable (at once if it is), or with the error of the
    /// commit that should have made it so. Runs on the journal thread, or on the caller's.
    public func whenDurable(_ version: UInt64, _ completion: @escaping Completion) {
        let now: Result<UInt64, JournalError>? = state.withLock { state in
            if let broken = state.broken { return .failure(broken) }
            if version <= state.durableVersion { return .success(state.durableVersion) }
            if state.finished {
                return .failure(JournalError(code: .closed, message: "the journal stopped before version \(version) was durable"))
            }
            state.waiters.append(Waiter(version: version, completion: completion))
            return nil
        }
        if let now { completion(now) }
    }

    /// Blocks until `version` is durable or its commit failed; nil after `timeout`.
    public func waitUntilDurable(_ version: UInt64, timeout: Duration) -> Result<UInt64, JournalError>? {
        let outcome = Lock<Result<UInt64, JournalError>?>(nil)
        whenDurable(version) { result in
            outcome.withLock { $0 = result }
            outcome.notifyAll()
        }
        return outcome.withLock(waitingUntil: { $0 != nil }, timeout: timeout) { value, _ in value }
    }

    /// Commits what is queued (one attempt if commits are failing), fails whatever still waits,
    /// and stops the thread. Idempotent.
    public func stop() {
        let wasStarted = state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        state.notifyAll()
        if wasStarted {
            state.withLock(waitingUntil: \.finished) { _ in }
        }
    }

    private func run() {
        var pause: Duration = .milliseconds(10)
        while true {
            let (batch, stopping) = state.withLock(waitingUntil: { !$0.pending.isEmpty || $0.stopping }) { state in
                let count = min(state.pending.count, maxGroup)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return (batch, state.stopping)
            }
            if batch.isEmpty {
                break  // stopping, nothing left
            }
            do {
                try storage.append(batch)
                pause = .milliseconds(10)
                finishCommit(of: batch)
            } catch {
                failCommit(of: batch, error)
                if stopping { break }
                // Retry after a pause that grows to 1 s, unless asked to stop meanwhile.
                _ = state.wait(timeout: pause) { $0.stopping }
                pause = min(pause * 2, .seconds(1))
            }
        }
        let orphans = state.withLock { state -> [Waiter] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        state.notifyAll()
        let closed = JournalError(code: .closed, message: "the journal stopped before these versions were durable")
        for waiter in orphans {
            waiter.completion(.failure(closed))
        }
    }

    private func finishCommit(of batch: [JournalRecord]) {
        guard let last = batch.last?.version else { return }
        let released = state.withLock { state -> [Waiter] in
            state.durableVersion = last
            state.failure = nil
            state.commits += 1
            state.committedRecords += UInt64(batch.count)
            var released: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.version <= last else { return false }
                released.append(waiter)
                return true
            }
            return released
        }
        for listener in durableListeners.withLock({ $0 }) {
            listener(last)
        }
        for waiter in released {
            waiter.completion(.success(last))
        }
    }

    private func failCommit(of batch: [JournalRecord], _ error: any Error) {
        let journalError = error as? JournalError
            ?? JournalError(code: .writeFailed, message: "journal commit failed: \(error)")
        let failed = state.withLock { state -> [Waiter] in
            state.failure = journalError
            // Back to the front of the queue, in order: nothing the store holds is dropped.
            state.pending.insert(contentsOf: batch, at: 0)
            var failed: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.version <= batch.last?.version ?? 0 else { return false }
                failed.append(waiter)
                return true
            }
            return failed
        }
        for waiter in failed {
            waiter.completion(.failure(journalError))
        }
    }
}
