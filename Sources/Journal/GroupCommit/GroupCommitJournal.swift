import ConcurrencyKit
import DequeModule
import Synchronization

/// One store's journal queue: records queue up while a commit runs and go together in the next
/// one (group commit), then everyone waiting for a version it covered is released. The commits
/// themselves are a ``JournalCommitter``'s: one thread per database, whose transactions carry
/// the batches of every store's journal registered with it (one sync for many stores). A journal
/// made without one gets a committer of its own.
///
/// One fsync costs about as much for one record as for a thousand (measured here: SQLite in WAL
/// mode with `synchronous=FULL` commits ~6k single-row transactions/s but ~230k rows/s in
/// 64-row ones), so under load the batch grows by itself and throughput follows the disk's
/// bandwidth instead of its fsync latency.
///
/// When a commit fails (disk full, I/O error) its waiters get the error, the records stay queued
/// (never dropped: the store already holds them in memory) and the committer retries with a
/// growing pause; ``failure`` tells the server to refuse new actions meanwhile. A record whose
/// version does not follow the previous one would leave a gap: the journal then refuses
/// everything.
///
/// A *group* (``beginGroup()`` … ``endGroup(keeping:)``) is the records of one request and the
/// answer kept for its `Idempotency-Key`: they always go in the same transaction, so a crash never
/// leaves the actions durable without the answer that stops a retry from dispatching them again.
public final class GroupCommitJournal: Sendable {
    /// Called once a version (and every one before it) is durable, or with the error that kept it
    /// from being so.
    public typealias Completion = @Sendable (Result<UInt64, JournalError>) -> Void

    /// Who waits for which version (a struct: see ``OpenGroup``).
    fileprivate struct Waiter {
        let version: UInt64
        let completion: Completion
    }

    /// The waiters a successful commit released, and the durable version they are told: the
    /// committer tells them after every store's part of the transaction is complete
    /// (``completeCommit(of:error:transactionRecords:deferringWaiters:)``).
    struct Release {
        fileprivate let waiters: [Waiter]
        fileprivate let version: UInt64

        /// Tells each waiter its version is durable.
        func run() {
            for waiter in waiters {
                waiter.completion(.success(version))
            }
        }
    }

    /// An answer waiting for its commit, and the newest version queued when it was kept: it goes
    /// in the transaction that holds that version (or in any later one).
    private struct PendingAnswer {
        let answer: KeptAnswer
        let through: UInt64
    }

    /// The first version of the open group, and how deeply groups are nested. Structs, here and in
    /// ``Claim``, rather than tuples: an optional tuple is handled through the runtime's generic
    /// tuple witnesses at every touch (each append, each batch taken: about 200 instructions).
    private struct OpenGroup {
        let first: UInt64
        let depth: Int
    }

    /// A record claimed by the thread that dispatched it, and until when.
    private struct Claim {
        let version: UInt64
        let until: ContinuousClock.Instant
    }

    /// The versions of a closed group still queued: never split between two transactions.
    private struct GroupSpan {
        let first: UInt64
        let last: UInt64
    }

    /// What one transaction takes from the queue.
    struct Batch {
        var records: [JournalRecord]
        var answers: [KeptAnswer]
        var isEmpty: Bool { records.isEmpty && answers.isEmpty }
    }

    /// What the committer finds when it looks at the journal.
    enum Take {
        /// A batch to commit; the journal counts as committing until ``completeCommit(of:error:transactionRecords:deferringWaiters:)``.
        case batch(Batch)
        /// A record claimed by the thread that dispatched it, until then.
        case claimed(until: ContinuousClock.Instant)
        /// Nothing to commit now.
        case idle
        /// Stopped: the committer forgets it.
        case finished
    }

    private struct State {
        var pending: Deque<JournalRecord> = []
        var pendingAnswers: Deque<PendingAnswer> = []
        var groups: Deque<GroupSpan> = []
        /// The first version of the open group, and how deeply groups are nested.
        var openGroup: OpenGroup?
        var lastQueuedVersion: UInt64
        var durableVersion: UInt64
        var waiters: [Waiter] = []
        var failure: JournalError?
        /// Set for good when a record would have left a gap, or the storage refused the store.
        var broken: JournalError?
        /// Where the journal is in its life: started, asked to stop, ended.
        var started = false, stopping = false, finished = false
        /// A commit is running (the committer's, or a caller's:
        /// ``commitOnCallingThread(through:)``); commits and their listeners never overlap.
        var committing = false
        /// Records in the last transaction this journal's records went in — of every store in it,
        /// when the committer is shared: more than a request brings means load, where the
        /// committer batches (a request committed on its own thread then would split batches, and a
        /// claim would only delay the committer). Spread over many stores, each store's own share
        /// of a transaction is one record or so: counted per store, every request looked alone.
        var lastCommitRecords = 0
        /// A lone record left for the thread that dispatched it to commit
        /// (``commitOnCallingThread(through:)``), and until when: the committer leaves it alone
        /// meanwhile, so the two do not race for it; past that (nobody came for it) or once
        /// someone waits for it, the committer commits it as any other.
        var claim: Claim?
        var commits: UInt64 = 0
        var committedRecords: UInt64 = 0
        /// The versions still queued when the journal stopped (their commits failed).
        var abandoned: ClosedRange<UInt64>?
        /// Added before the start; read with the rest of the state once per commit (one lock for
        /// the commit's bookkeeping and its listeners: spread over many stores, each store's part
        /// of a transaction is a record or so, and every lock taken per part counts).
        var listeners = Listeners()
    }

    /// Who hears of this journal's commits.
    private struct Listeners {
        /// The first listener added as an object (``JournalDurabilityListener``), held here: a
        /// commit reads no closure or array of its own to reach it.
        var durableObject: (any JournalDurabilityListener)?
        var durable: [@Sendable (UInt64) -> Void] = []
        var answers: [AnswerListener] = []
    }

    /// Counters for benchmarks and logs.
    public struct Statistics: Sendable, Equatable {
        /// Transactions committed.
        public var commits: UInt64
        /// Records committed.
        public var records: UInt64
    }

    // What a request reads (its health check, `append`, the commit on its own thread), first: in
    // the object's first cache line, which over many stores is cold when a request comes.
    /// Whether ``failure`` is set: a request's health check loads this instead of taking the lock
    /// (over many stores the lock's and the state's lines are cold). Written under the lock, with
    /// `failure` and `broken`.
    private let failing = Atomic<Bool>(false)
    private let state: Lock<State>
    /// The thread that commits (shared with other stores' journals, or this journal's own).
    public let committer: JournalCommitter
    private let maxGroup: Int
    private let ownsCommitter: Bool
    /// Where this store's records go.
    let storage: any JournalStorage

    /// Told of kept answers once their commit succeeded, or with the error of one that failed
    /// (they stay queued and go in a later commit).
    public typealias AnswerListener = @Sendable ([KeptAnswer], Result<Void, JournalError>) -> Void

    /// A journal with a committer of its own (one thread, this store only).
    /// - Parameters:
    ///   - storage: where records go.
    ///   - lastVersion: the newest version the storage holds (from ``JournalStorage/recover()``).
    ///   - maxGroup: the most records in one transaction.
    public convenience init(storage: any JournalStorage, lastVersion: UInt64, maxGroup: Int = 8_192) {
        self.init(storage: storage, lastVersion: lastVersion, policy: CommitPolicy(maxGroup: maxGroup))
    }

    /// A journal with a committer of its own that decides by `policy` and `clock`.
    public convenience init(
        storage: any JournalStorage, lastVersion: UInt64, policy: CommitPolicy, clock: any JournalClock = SystemJournalClock()
    ) {
        let committer = JournalCommitter(transactions: SeparateJournalTransactions(), policy: policy, clock: clock)
        self.init(storage: storage, lastVersion: lastVersion, committer: committer, ownsCommitter: true)
    }

    /// A journal whose commits `committer` makes, together with those of the other journals
    /// registered with it (the stores of one database). `committer` must write to the database
    /// `storage` belongs to, and outlive the journal's ``stop()``.
    public convenience init(storage: any JournalStorage, lastVersion: UInt64, committer: JournalCommitter) {
        self.init(storage: storage, lastVersion: lastVersion, committer: committer, ownsCommitter: false)
    }

    private init(storage: any JournalStorage, lastVersion: UInt64, committer: JournalCommitter, ownsCommitter: Bool) {
        self.storage = storage
        self.committer = committer
        self.ownsCommitter = ownsCommitter
        maxGroup = committer.policy.maxGroup
        state = Lock(State(lastQueuedVersion: lastVersion, durableVersion: lastVersion))
    }

    /// The newest version known durable.
    public var durableVersion: UInt64 {
        state.withLock { $0.durableVersion }
    }

    /// Why the last commit failed, while commits fail (cleared by the next one that succeeds).
    public var failure: JournalError? {
        guard failing.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.broken ?? $0.failure }
    }

    /// Transactions and records committed so far.
    public var statistics: Statistics {
        state.withLock { Statistics(commits: $0.commits, records: $0.committedRecords) }
    }

    /// Calls `listener` on the committing thread after every commit, with the newest durable
    /// version. Add listeners before ``start()``.
    public func onDurable(_ listener: @escaping @Sendable (UInt64) -> Void) {
        state.withLock { $0.listeners.durable.append(listener) }
    }

    /// `onDurable` for a listener that is an object (a store's commit gate):
    /// the first one is held in the journal's own state, so that a commit over many stores
    /// touches no closure context or array per store to reach it; it is called before the
    /// closures. Add it before ``start()``.
    public func onDurable(_ listener: any JournalDurabilityListener) {
        state.withLock { state in
            if state.listeners.durableObject == nil {
                state.listeners.durableObject = listener
            } else {
                state.listeners.durable.append { version in listener.journalDidCommit(through: version) }
            }
        }
    }

    /// Calls `listener` on the committing thread after every commit that held kept answers, and
    /// after every failed commit that should have. Add listeners before ``start()``.
    public func onAnswers(_ listener: @escaping AnswerListener) {
        state.withLock { $0.listeners.answers.append(listener) }
    }

    /// Opens a group: the records appended until the matching ``endGroup(keeping:)`` go in one
    /// transaction, with the answer kept then. Call it where no other thread can append meanwhile
    /// (inside the store's exclusive step); groups may nest, the outermost one counts.
    public func beginGroup() {
        state.withLock { state in
            if let open = state.openGroup {
                state.openGroup = OpenGroup(first: open.first, depth: open.depth + 1)
            } else {
                state.openGroup = OpenGroup(first: state.lastQueuedVersion + 1, depth: 1)
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
                state.openGroup = OpenGroup(first: open.first, depth: open.depth - 1)
                return
            }
            state.openGroup = nil
            if state.lastQueuedVersion >= open.first {
                state.groups.append(GroupSpan(first: open.first, last: state.lastQueuedVersion))
            }
        }
        committer.wake(self)
    }

    /// Starts committing: registers with the committer (starting it if it is not running yet);
    /// false if its thread could not start or it stopped.
    public func start() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard claimed else { return true }
        guard committer.start(), committer.register(self) else {
            state.withLock { $0.finished = true }
            return false
        }
        // Records queued before the start.
        committer.wake(self)
        return true
    }

    /// Queues `record`, whose version must follow the previous one's. Cheap: the store's
    /// processing thread calls it for every reduce.
    public func append(_ record: JournalRecord) {
        let patience = committer.policy.claimPatience
        let now = patience > .zero ? committer.clock.now : nil
        let (wake, claimedUntil, abandoned) = state.withLock { state -> (Bool, ContinuousClock.Instant?, [Waiter]) in
            guard state.broken == nil, !state.finished else { return (false, nil, []) }
            guard record.version == state.lastQueuedVersion + 1 else {
                state.broken = JournalError(
                    code: .corrupt,
                    message: "journal refused version \(record.version) after \(state.lastQueuedVersion): it would leave a gap; no action is journaled from now on"
                )
                failing.store(true, ordering: .releasing)
                defer { state.waiters = [] }
                return (false, nil, state.waiters)
            }
            state.lastQueuedVersion = record.version
            state.pending.append(record)
            let wasClaimed = state.claim != nil
            if let now, state.pending.count == 1, state.waiters.isEmpty, !state.committing, state.openGroup == nil,
               state.failure == nil, state.lastCommitRecords <= 1 {
                state.claim = Claim(version: record.version, until: now + patience)
            } else {
                state.claim = nil
            }
            // The committer must hear of a first record nobody claimed, of a claim this record
            // ended, and of a claim (to come back for it if nobody does).
            let wake = state.claim == nil && (state.pending.count == 1 || wasClaimed)
            return (wake, state.claim?.until, [])
        }
        if let claimedUntil {
            committer.noteClaim(of: self, until: claimedUntil)
        } else if wake {
            committer.wake(self)
        }
        if !abandoned.isEmpty, let broken = failure {
            for waiter in abandoned { waiter.completion(.failure(broken)) }
        }
    }

    /// Calls `completion` once `version` is durable (at once if it is), or with the error of the
    /// commit that should have made it so. Runs on the committing thread, or on the caller's.
    public func whenDurable(_ version: UInt64, _ completion: @escaping Completion) {
        let (now, endedClaim) = state.withLock { state -> (Result<UInt64, JournalError>?, Bool) in
            if let broken = state.broken { return (.failure(broken), false) }
            if version <= state.durableVersion { return (.success(state.durableVersion), false) }
            if state.finished {
                return (.failure(JournalError(code: .closed, message: "the journal stopped before version \(version) was durable")), false)
            }
            state.waiters.append(Waiter(version: version, completion: completion))
            // Someone waits: a claimed record goes to the committer now.
            defer { state.claim = nil }
            return (nil, state.claim != nil)
        }
        if let now {
            completion(now)
        } else if endedClaim {
            committer.wake(self)
        }
    }

    /// Commits what is queued through `version` on the calling thread, and returns the outcome —
    /// when that saves the hand-over to the committer and back: nothing else waits for the
    /// journal, no commit is running, `version` is the newest queued, the last commit held no more
    /// records than this one would (no load), and commits are not failing.
    /// Otherwise nil: wait with ``whenDurable(_:_:)``. Listeners run on the calling thread then;
    /// commits and their listeners never overlap, whichever thread runs them.
    ///
    /// A lone request (one client at a time) is answered without waking the committer and then
    /// the HTTP worker again; under load there are waiters, and the committer batches.
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
        let error = committer.writeOnCallingThread(JournalWrite(storage: storage, records: taken.records, answers: taken.answers))
        completeCommit(of: taken, error: error)
        if let error { return .failure(error) }
        return .success(taken.records.last?.version ?? version)
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
    /// and leaves the committer (stopping it when it is this journal's own). Idempotent. Returns
    /// the versions that could not be committed (their commits failed; the store had them in
    /// memory only), for the server to report. Its listeners are dropped: nothing is committed
    /// after, and they may hold what holds the journal (a store's publication handler appends to
    /// it), which would otherwise never be freed.
    @discardableResult
    public func stop() -> ClosedRange<UInt64>? {
        let wasStarted = requestStop()
        defer { dropListeners() }
        guard wasStarted else { return nil }
        committer.wake(self, stopping: true)
        let abandoned = state.withLock(waitingUntil: \.finished) { $0.abandoned }
        if ownsCommitter { committer.stop() }
        return abandoned
    }

    private func dropListeners() {
        state.withLock { $0.listeners = Listeners() }
    }

    // MARK: - What the committer calls

    /// Marks the journal stopping; whether it was started.
    @discardableResult
    func requestStop() -> Bool {
        state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
    }

    /// The committer looks at the journal at `now`: the next batch (the journal is then
    /// committing), a claim to come back for, nothing, or — stopping with nothing left — the end.
    func takeBatch(now: ContinuousClock.Instant) -> Take {
        let maxGroup = maxGroup
        var orphans: [Waiter] = []
        let take = state.withLock { state -> Take in
            if state.finished { return .finished }
            guard state.started, !state.committing else { return .idle }
            if let claim = state.claim, claim.version <= state.durableVersion || now >= claim.until {
                state.claim = nil  // committed by its thread, or left: no longer a reason to wait
            }
            if let claim = state.claim, !state.stopping { return .claimed(until: claim.until) }
            let size = Self.nextBatchSize(of: state, maxGroup: maxGroup)
            guard state.broken == nil, size.records > 0 || size.answers > 0 else {
                guard state.stopping else { return .idle }
                orphans = Self.finish(&state)
                return .finished
            }
            state.claim = nil
            state.committing = true
            return .batch(Self.take(size, from: &state))
        }
        if case .finished = take { finished(orphans) }
        return take
    }

    /// Ends a commit of `batch` (taken by ``takeBatch(now:)`` or on a caller's thread): tells the
    /// listeners and releases the waiters it covers, or fails them with `error` and queues the
    /// batch again (for good, with ``JournalErrorCode/closed``: the storage refuses the store).
    /// A failure while stopping ends the journal. `transactionRecords` counts the records of every
    /// store in the transaction (nil: this batch's).
    ///
    /// With `deferringWaiters`, the waiters a success released are returned instead of being told
    /// here: the committer tells every store's waiters after every store's listeners, so that the
    /// HTTP workers get their connections back together, as with one store, rather than one at a
    /// time between the parts' publications.
    @discardableResult
    func completeCommit(of batch: Batch, error: JournalError?, transactionRecords: Int? = nil, deferringWaiters: Bool = false) -> Release? {
        var release: Release?
        if let error {
            failCommit(of: batch, error)
        } else {
            release = finishCommit(of: batch, transactionRecords: transactionRecords ?? batch.records.count)
            if !deferringWaiters {
                release?.run()
                release = nil
            }
        }
        var orphans: [Waiter] = []
        let (more, ended) = state.withLock { state -> (Bool, Bool) in
            state.committing = false
            if error != nil, state.stopping, !state.finished {
                orphans = Self.finish(&state)
                return (true, true)
            }
            return (!state.pending.isEmpty || !state.pendingAnswers.isEmpty || state.stopping, false)
        }
        if ended { finished(orphans) }
        // The committer looks again for what was queued meanwhile, or to finish a stop.
        if more { committer.wake(self) }
        return release
    }

    /// Marks the journal finished (with what it leaves uncommitted); returns the waiters to fail.
    private static func finish(_ state: inout State) -> [Waiter] {
        if let first = state.pending.first?.version, let last = state.pending.last?.version {
            state.abandoned = first...last
        }
        state.finished = true
        defer { state.waiters = [] }
        return state.waiters
    }

    /// Wakes ``stop()`` and fails the waiters the journal leaves.
    private func finished(_ orphans: [Waiter]) {
        state.notifyAll()
        let closed = JournalError(code: .closed, message: "the journal stopped before these versions were durable")
        for waiter in orphans {
            waiter.completion(.failure(closed))
        }
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

    /// Records the commit of `batch` and tells the listeners; returns the waiters it released, for
    /// the caller to tell.
    private func finishCommit(of batch: Batch, transactionRecords: Int) -> Release {
        let last = batch.records.last?.version
        let hasAnswers = !batch.answers.isEmpty
        // Only the listeners this commit calls are copied out (each array copied is a retain and a
        // release of its buffer, cold when the commit spans many stores); the waiters too, and
        // without an array of their own in the common case of a part whose waiters all wait for
        // versions it made durable.
        var object: (any JournalDurabilityListener)?
        let (released, durable, answers) = state.withLock { state -> ([Waiter], [@Sendable (UInt64) -> Void], [AnswerListener]) in
            if state.failure != nil {
                state.failure = nil
                failing.store(state.broken != nil, ordering: .releasing)
            }
            state.commits += 1
            state.lastCommitRecords = transactionRecords
            let answers = hasAnswers ? state.listeners.answers : []
            guard let last else { return ([], [], answers) }
            state.durableVersion = last
            state.committedRecords += UInt64(batch.records.count)
            while let group = state.groups.first, group.last <= last {
                state.groups.removeFirst()
            }
            object = state.listeners.durableObject
            let durable = state.listeners.durable.isEmpty ? [] : state.listeners.durable
            return (Self.releaseWaiters(through: last, from: &state.waiters), durable, answers)
        }
        if let last {
            object?.journalDidCommit(through: last)
            for listener in durable {
                listener(last)
            }
        }
        for listener in answers {
            listener(batch.answers, .success(()))
        }
        return Release(waiters: released, version: last ?? 0)
    }

    /// Removes and returns the waiters of versions through `last`, in the order they came.
    private static func releaseWaiters(through last: UInt64, from waiters: inout [Waiter]) -> [Waiter] {
        guard !waiters.isEmpty else { return [] }
        if waiters.allSatisfy({ $0.version <= last }) {
            defer { waiters = [] }
            return waiters
        }
        var released: [Waiter] = []
        waiters.removeAll { waiter in
            guard waiter.version <= last else { return false }
            released.append(waiter)
            return true
        }
        return released
    }

    private func failCommit(of batch: Batch, _ journalError: JournalError) {
        let (failed, listeners) = state.withLock { state -> ([Waiter], [AnswerListener]) in
            state.failure = journalError
            if journalError.code == .closed {
                // The storage refuses the store for good (closed, or the store deleted).
                state.broken = journalError
            }
            failing.store(true, ordering: .releasing)
            // Back to the front of the queue, in order: nothing the store holds is dropped.
            state.pending.insert(contentsOf: batch.records, at: 0)
            let through = batch.records.last?.version ?? state.durableVersion
            state.pendingAnswers.insert(contentsOf: batch.answers.map { PendingAnswer(answer: $0, through: through) }, at: 0)
            var failed: [Waiter] = []
            let covered = state.broken == nil ? batch.records.last?.version ?? 0 : UInt64.max
            state.waiters.removeAll { waiter in
                guard waiter.version <= covered else { return false }
                failed.append(waiter)
                return true
            }
            return (failed, state.listeners.answers)
        }
        if !batch.answers.isEmpty {
            for listener in listeners {
                listener(batch.answers, .failure(journalError))
            }
        }
        for waiter in failed {
            waiter.completion(.failure(journalError))
        }
    }
}
