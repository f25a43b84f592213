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
///
/// A *group* (``beginGroup()`` … ``endGroup(keeping:)``) is the records of one request and the
/// answer kept for its `Idempotency-Key`: they always go in the same transaction, so a crash never
/// leaves the actions durable without the answer that stops a retry from dispatching them again.
public final class GroupCommitJournal: Sendable {
    /// Called once a version (and every one before it) is durable, or with the error that kept it
    /// from being so.
    public typealias Completion = @Sendable (Result<UInt64, JournalError>) -> Void

    private struct Waiter {
        let version: UInt64
        let completion: Completion
    }

    /// An answer waiting for its commit, and the newest version queued when it was kept: it goes
    /// in the transaction that holds that version (or in any later one).
    private struct PendingAnswer {
        let answer: KeptAnswer
        let through: UInt64
    }

    /// The versions of a closed group still queued: never split between two transactions.
    private struct GroupSpan {
        let first: UInt64
        let last: UInt64
    }

    private struct Batch {
        var records: [JournalRecord]
        var answers: [KeptAnswer]
        var isEmpty: Bool { records.isEmpty && answers.isEmpty }
    }

    private struct State {
        var pending: Deque<JournalRecord> = []
        var pendingAnswers: Deque<PendingAnswer> = []
        var groups: Deque<GroupSpan> = []
        /// The first version of the open group, and how deeply groups are nested.
        var openGroup: (first: UInt64, depth: Int)?
        var lastQueuedVersion: UInt64
        var durableVersion: UInt64
        var waiters: [Waiter] = []
        var failure: JournalError?
        /// Set for good when a record would have left a gap.
        var broken: JournalError?
        var started = false
        var stopping = false
        var finished = false
        /// A commit is running (on the journal thread, or on a caller's:
        /// ``commitOnCallingThread(through:)``); commits and their listeners never overlap.
        var committing = false
        /// Records in the last commit: more than a request brings means load, where the journal
        /// thread batches (a request committed on its own thread then would split batches).
        var lastCommitRecords = 0
        /// A lone record left for the thread that dispatched it to commit
        /// (``commitOnCallingThread(through:)``), and until when: the journal thread leaves it
        /// alone meanwhile, so the two do not race for it; past that (nobody came for it) or once
        /// someone waits for it, the journal thread commits it as any other.
        var claim: (version: UInt64, until: ContinuousClock.Instant)?
        /// When the newest claim ran out (or will): for ``claimLinger`` after it, the journal
        /// thread keeps looking at claims by itself, every ``claimPatience``.
        var lastClaimUntil: ContinuousClock.Instant = .now
        /// The journal thread's wait is timed (it comes back within ``claimPatience`` by itself),
        /// so a new claim need not wake it.
        var threadWaitIsTimed = false
        var commits: UInt64 = 0
        var committedRecords: UInt64 = 0
        /// The versions still queued when the thread stopped (their commits failed).
        var abandoned: ClosedRange<UInt64>?
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
    private let answerListeners = Lock<[AnswerListener]>([])
    private let commitListeners = Lock<[@Sendable (Int, Duration) -> Void]>([])

    /// Told of kept answers once their commit succeeded, or with the error of one that failed
    /// (they stay queued and go in a later commit).
    public typealias AnswerListener = @Sendable ([KeptAnswer], Result<Void, JournalError>) -> Void

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

    /// Transactions and records committed so far.
    public var statistics: Statistics {
        state.withLock { Statistics(commits: $0.commits, records: $0.committedRecords) }
    }

    /// Calls `listener` on the journal thread after every commit, with the newest durable version.
    /// Add listeners before ``start()``.
    public func onDurable(_ listener: @escaping @Sendable (UInt64) -> Void) {
        durableListeners.withLock { $0.append(listener) }
    }

    /// Calls `listener` on the journal thread after every commit that held kept answers, and after
    /// every failed commit that should have. Add listeners before ``start()``.
    public func onAnswers(_ listener: @escaping AnswerListener) {
        answerListeners.withLock { $0.append(listener) }
    }

    /// Calls `listener` on the journal thread after every successful commit, with the records it
    /// held and how long the storage took (for metrics). Add listeners before ``start()``.
    public func onCommit(_ listener: @escaping @Sendable (_ records: Int, _ duration: Duration) -> Void) {
        commitListeners.withLock { $0.append(listener) }
    }

    /// Opens a group: the records appended until the matching ``endGroup(keeping:)`` go in one
    /// transaction, with the answer kept then. Call it where no other thread can append meanwhile
    /// (inside the store's exclusive step); groups may nest, the outermost one counts.
    public func beginGroup() {
        state.withLock { state in
            if let open = state.openGroup {
                state.openGroup = (open.first, open.depth + 1)
            } else {
                state.openGroup = (state.lastQueuedVersion + 1, 1)
            }
        }
    }

    /// Closes the group opened by ``beginGroup()``, keeping `answer` (if any) in the same commit as
    /// its records; listeners added with ``onAnswers(_:)`` hear when it is durable.
    public func endGroup(keeping answer: KeptAnswer?) {
        state.withLock { state in
            state.claim = nil
            guard let open = state.openGroup else { return }
            if let answer {
                state.pendingAnswers.append(PendingAnswer(answer: answer, through: state.lastQueuedVersion))
            }
            if open.depth > 1 {
                state.openGroup = (open.first, open.depth - 1)
                return
            }
            state.openGroup = nil
            if state.lastQueuedVersion >= open.first {
                state.groups.append(GroupSpan(first: open.first, last: state.lastQueuedVersion))
            }
        }
        state.notifyAll()
    }

    /// Starts the journal thread; false if the system refused it.
    public func start() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard claimed else { return true }
        guard startDetachedThread(named: "journal-commit", { [self] in run() }) else {
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
            let wasClaimed = state.claim != nil
            if state.pending.count == 1, state.waiters.isEmpty, !state.committing, state.openGroup == nil,
               state.failure == nil, state.lastCommitRecords <= 1 {
                let until = ContinuousClock.now + Self.claimPatience
                state.claim = (record.version, until)
                state.lastClaimUntil = until
            } else {
                state.claim = nil
            }
            let claimed = state.claim != nil
            // The thread must hear of a first record nobody claimed, of a claim this record ended,
            // and of a claim while its wait is untimed (to come back for it if nobody does).
            let wake = (state.pending.count == 1 && (!claimed || !state.threadWaitIsTimed)) || (wasClaimed && !claimed)
            return (wake, [])
        }
        if wake { state.notifyAll() }
        if let broken = failure {
            for waiter in abandoned { waiter.completion(.failure(broken)) }
        }
    }

    /// Calls `completion` once `version` is durable (at once if it is), or with the error of the
    /// commit that should have made it so. Runs on the journal thread, or on the caller's.
    public func whenDurable(_ version: UInt64, _ completion: @escaping Completion) {
        let (now, endedClaim) = state.withLock { state -> (Result<UInt64, JournalError>?, Bool) in
            if let broken = state.broken { return (.failure(broken), false) }
            if version <= state.durableVersion { return (.success(state.durableVersion), false) }
            if state.finished {
                return (.failure(JournalError(code: .closed, message: "the journal stopped before version \(version) was durable")), false)
            }
            state.waiters.append(Waiter(version: version, completion: completion))
            // Someone waits: a claimed record goes to the journal thread now.
            defer { state.claim = nil }
            return (nil, state.claim != nil)
        }
        if let now {
            completion(now)
        } else if endedClaim {
            state.notifyAll()
        }
    }

    /// Commits what is queued through `version` on the calling thread, and returns the outcome —
    /// when that saves the hand-over to the journal thread and back: nothing else waits for the
    /// journal, no commit is running, `version` is the newest queued, the last commit held no more
    /// records than this one would (no load), and commits are not failing.
    /// Otherwise nil: wait with ``whenDurable(_:_:)``. Listeners run on the calling thread then;
    /// commits and their listeners never overlap, whichever thread runs them.
    ///
    /// A lone request (one client at a time) is answered without waking the journal thread and
    /// then the HTTP worker again; under load there are waiters, and the journal thread batches.
    public func commitOnCallingThread(through version: UInt64) -> Result<UInt64, JournalError>? {
        let maxGroup = maxGroup
        let taken = state.withLock { state -> Batch? in
            guard state.started, !state.finished, !state.stopping, state.broken == nil, state.failure == nil,
                  !state.committing, state.waiters.isEmpty, state.durableVersion < version,
                  state.pending.last?.version == version, state.lastCommitRecords <= state.pending.count
            else { return nil }
            let size = Self.nextBatchSize(of: state, maxGroup: maxGroup)
            // Not taken: the claim stays, for the waiter the caller registers next to end it.
            guard size.records == state.pending.count else { return nil }
            state.claim = nil
            state.committing = true
            return Self.take(size, from: &state)
        }
        guard let taken else {
            return durableVersion >= version ? .success(durableVersion) : nil
        }
        let outcome = commit(taken)
        // The journal thread needs waking only for what was queued meanwhile (it waits for no
        // commit to be running before it takes a batch) or to stop.
        let wake = state.withLock { state -> Bool in
            state.committing = false
            return !state.pending.isEmpty || !state.pendingAnswers.isEmpty || state.stopping
        }
        if wake { state.notifyAll() }
        return outcome.map { $0 ?? version }
    }

    /// How long a record claimed by the thread that dispatched it is left to that thread.
    static var claimPatience: Duration { .milliseconds(2) }

    /// How long after the last claim the journal thread keeps looking at claims every
    /// ``claimPatience`` without being woken: a client sending requests one after the other then
    /// costs no wake-up of the journal thread per request; once it stops, the thread sleeps.
    static var claimLinger: Duration { .milliseconds(100) }

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
    /// and stops the thread. Idempotent. Returns the versions that could not be committed (their
    /// commits failed; the store had them in memory only), for the server to report.
    @discardableResult
    public func stop() -> ClosedRange<UInt64>? {
        let wasStarted = state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        state.notifyAll()
        guard wasStarted else { return nil }
        return state.withLock(waitingUntil: \.finished) { $0.abandoned }
    }

    private func run() {
        var pause: Duration = .milliseconds(10)
        commits: while true {
            let maxGroup = maxGroup
            // A claimed record is left to its thread for `claimPatience`: while there is one, and
            // for `claimLinger` after the last, the wait is timed, to come back for claims (the
            // predicate reads the clock); otherwise it ends when a claim appears, to switch to the
            // timed wait.
            let timed = state.withLock { state -> Bool in
                state.threadWaitIsTimed = state.claim != nil || ContinuousClock.now < state.lastClaimUntil + Self.claimLinger
                return state.threadWaitIsTimed
            }
            let take = { (state: inout State, ready: Bool) -> (Batch, Bool) in
                if let claim = state.claim, claim.version <= state.durableVersion || ContinuousClock.now >= claim.until {
                    state.claim = nil  // committed by its thread, or left: no longer a reason to wait
                }
                guard ready, Self.isReady(state, maxGroup: maxGroup) else { return (Batch(records: [], answers: []), false) }
                state.claim = nil
                let batch = Self.take(Self.nextBatchSize(of: state, maxGroup: maxGroup), from: &state)
                state.committing = !batch.isEmpty
                return (batch, state.stopping)
            }
            let (batch, stopping) = timed
                ? state.withLock(waitingUntil: { Self.isReady($0, maxGroup: maxGroup) }, timeout: Self.claimPatience, take)
                : state.withLock(waitingUntil: { Self.isReady($0, maxGroup: maxGroup) || $0.claim != nil }) { take(&$0, true) }
            if batch.isEmpty {
                if stopping { break commits }  // stopping, nothing left
                continue  // the wait timed out: look again
            }
            let outcome = commit(batch)
            state.withLock { $0.committing = false }
            switch outcome {
            case .success:
                pause = .milliseconds(10)
            case .failure:
                if stopping { break commits }
                // Retry after a pause that grows to 1 s, unless asked to stop meanwhile.
                _ = state.wait(timeout: pause) { $0.stopping }
                pause = min(pause * 2, .seconds(1))
            }
        }
        let orphans = state.withLock { state -> [Waiter] in
            if let first = state.pending.first?.version, let last = state.pending.last?.version {
                state.abandoned = first...last
            }
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

    /// Whether the journal thread has a batch to commit (or is stopping): no commit running, and
    /// no claimed record still left to the thread that dispatched it.
    private static func isReady(_ state: State, maxGroup: Int) -> Bool {
        guard !state.committing else { return false }
        if state.stopping { return true }
        if let claim = state.claim, ContinuousClock.now < claim.until { return false }
        let size = nextBatchSize(of: state, maxGroup: maxGroup)
        return size.records > 0 || size.answers > 0
    }

    /// Removes the first `size` records and answers from the queue, as a batch.
    private static func take(_ size: (records: Int, answers: Int), from state: inout State) -> Batch {
        let batch = Batch(
            records: Array(state.pending.prefix(size.records)),
            answers: state.pendingAnswers.prefix(size.answers).map(\.answer)
        )
        state.pending.removeFirst(size.records)
        state.pendingAnswers.removeFirst(size.answers)
        return batch
    }

    /// Writes `batch`, tells the listeners and releases (or fails) the waiters it covers; the
    /// newest version it made durable (nil for answers only). The caller holds `committing`.
    private func commit(_ batch: Batch) -> Result<UInt64?, JournalError> {
        do {
            let started = ContinuousClock.now
            try storage.append(batch.records, answers: batch.answers)
            let duration = ContinuousClock.now - started
            for listener in commitListeners.withLock({ $0 }) {
                listener(batch.records.count, duration)
            }
            finishCommit(of: batch)
            return .success(batch.records.last?.version)
        } catch {
            return .failure(failCommit(of: batch, error))
        }
    }

    /// How much of the queue the next transaction takes: up to `maxGroup` records (more when a
    /// group would be split), none of an open group's (unless stopping), and the answers kept
    /// through them. Counts only: the wait predicate calls it on every wake-up.
    private static func nextBatchSize(of state: State, maxGroup: Int) -> (records: Int, answers: Int) {
        var cut = state.durableVersion
        var records = 0
        if let first = state.pending.first?.version, let last = state.pending.last?.version {
            var limit = last
            if let open = state.openGroup, !state.stopping {
                limit = min(limit, open.first - 1)
            }
            if first <= limit {
                cut = min(limit, first + UInt64(maxGroup) - 1)
                for group in state.groups where group.first <= cut && group.last > cut {
                    cut = group.last
                }
                records = Int(cut - first + 1)
            } else {
                cut = first - 1
            }
        }
        var answers = 0
        for pending in state.pendingAnswers {
            guard pending.through <= cut else { break }
            answers += 1
        }
        return (records, answers)
    }

    private func finishCommit(of batch: Batch) {
        let last = batch.records.last?.version
        let released = state.withLock { state -> [Waiter] in
            state.failure = nil
            state.commits += 1
            state.lastCommitRecords = batch.records.count
            guard let last else { return [] }
            state.durableVersion = last
            state.committedRecords += UInt64(batch.records.count)
            while let group = state.groups.first, group.last <= last {
                state.groups.removeFirst()
            }
            var released: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.version <= last else { return false }
                released.append(waiter)
                return true
            }
            return released
        }
        if let last {
            for listener in durableListeners.withLock({ $0 }) {
                listener(last)
            }
        }
        if !batch.answers.isEmpty {
            for listener in answerListeners.withLock({ $0 }) {
                listener(batch.answers, .success(()))
            }
        }
        for waiter in released {
            waiter.completion(.success(last ?? 0))
        }
    }

    @discardableResult
    private func failCommit(of batch: Batch, _ error: any Error) -> JournalError {
        let journalError = error as? JournalError
            ?? JournalError(code: .writeFailed, message: "journal commit failed: \(error)")
        let failed = state.withLock { state -> [Waiter] in
            state.failure = journalError
            // Back to the front of the queue, in order: nothing the store holds is dropped.
            state.pending.insert(contentsOf: batch.records, at: 0)
            let through = batch.records.last?.version ?? state.durableVersion
            state.pendingAnswers.insert(contentsOf: batch.answers.map { PendingAnswer(answer: $0, through: through) }, at: 0)
            var failed: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.version <= batch.records.last?.version ?? 0 else { return false }
                failed.append(waiter)
                return true
            }
            return failed
        }
        if !batch.answers.isEmpty {
            for listener in answerListeners.withLock({ $0 }) {
                listener(batch.answers, .failure(journalError))
            }
        }
        for waiter in failed {
            waiter.completion(.failure(journalError))
        }
        return journalError
    }
}
