package import ConcurrencyKit
import DequeModule

/// The commit thread of a database: takes what every ``GroupCommitJournal`` registered with it has
/// queued, writes all of it in one transaction (``JournalTransactions``: one sync for many
/// stores), then completes each journal's waiters and listeners.
///
/// A journal tells the committer when it has something (``wake(_:)``) or when a record of it is
/// claimed by the thread that dispatched it (``noteClaim(of:until:)``: looked at again once the
/// claim lapses). A transaction that fails fails every part it held; the journals keep their
/// records queued and the committer retries after a pause that grows
/// (``CommitPolicy/firstRetryPause`` … ``CommitPolicy/longestRetryPause``).
public final class JournalCommitter: Sendable {
    /// Counters for benchmarks and tests: one transaction is one sync of the storage.
    public struct Statistics: Sendable, Equatable {
        /// Transactions attempted (each is one sync when it succeeds), on any thread.
        public var transactions: UInt64 = 0
        /// Transactions that held parts of more than one store.
        public var sharedTransactions: UInt64 = 0
        /// Records stored.
        public var records: UInt64 = 0
        /// Transactions that failed.
        public var failures: UInt64 = 0
    }

    /// A journal to look at again, and when. A struct: a dictionary of tuples goes through the
    /// runtime's generic tuple witnesses at every walk.
    private struct Recheck {
        let journal: GroupCommitJournal
        let at: ContinuousClock.Instant
    }

    private struct State {
        var ready: Deque<GroupCommitJournal> = []
        var readyIDs: Set<ObjectIdentifier> = []
        /// Journals with a claimed record, and when to look at them again.
        var rechecks: [ObjectIdentifier: Recheck] = [:]
        var registered: [ObjectIdentifier: GroupCommitJournal] = [:]
        /// Until when the thread keeps looking at claims by itself (``CommitPolicy/claimLinger``).
        var lingerUntil: ContinuousClock.Instant
        /// The thread waits without a timeout: a new claim must wake it.
        var waitsUntimed = false
        /// Stops asked for by journals: they cut a retry pause short.
        var stopRequests: UInt64 = 0
        var started = false
        /// Started and not ended: journals may register.
        var running = false
        var stopping = false
        var statistics = Statistics()
        /// Told of every transaction that stored records (``onTransaction(key:_:)``).
        var transactionListeners: [ObjectIdentifier: TransactionListener] = [:]
    }

    /// Hears of a transaction that stored records: how many (of every store in it) and how long
    /// the storage took (the write and its one sync).
    public typealias TransactionListener = @Sendable (_ records: Int, _ duration: Duration) -> Void

    /// The numbers it decides by.
    public let policy: CommitPolicy
    /// The clock claims lapse by.
    public let clock: any JournalClock
    private let transactions: any JournalTransactions
    private let worker: Worker
    private let state: Lock<State>

    /// - Parameters:
    ///   - transactions: what writes a transaction (the database shared by the stores).
    ///   - policy: the numbers it decides by.
    ///   - clock: the clock claims lapse by.
    ///   - name: the thread's name.
    public init(
        transactions: any JournalTransactions,
        policy: CommitPolicy = CommitPolicy(),
        clock: any JournalClock = SystemJournalClock(),
        name: String = "journal-commit"
    ) {
        self.transactions = transactions
        self.policy = policy
        self.clock = clock
        let state = Lock(State(lingerUntil: clock.now))
        self.state = state
        worker = Worker(named: name) {
            state.withLock { state in
                state.stopping = true
                state.stopRequests &+= 1
            }
            state.notifyAll()
        }
    }

    /// Transactions and records so far.
    public var statistics: Statistics {
        state.withLock { $0.statistics }
    }

    /// Starts the thread (once; later calls report whether it runs); false if the system refused
    /// it or the committer was stopped.
    public func start() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard !state.started, !state.stopping else { return false }
            state.started = true
            state.running = true
            return true
        }
        guard claimed else { return state.withLock { $0.running } }
        do {
            try worker.start { [self] _ in run() }
            return true
        } catch {
            state.withLock { $0.running = false }
            return false
        }
    }

    /// Stops every journal still registered (each commits what it can first, as its own
    /// ``GroupCommitJournal/stop()`` does), then the thread, waiting for it. Idempotent. A thread
    /// still committing after 30 s (a write stuck in I/O) is left running: ``stop(timeout:)``
    /// says so.
    public func stop() {
        try? stop(timeout: Worker.defaultStopTimeout)
    }

    /// ``stop()``, waiting at most `timeout` for the thread; throws
    /// ``WorkerError/Code/stopTimedOut`` when it has not ended by then.
    package func stop(timeout: Duration) throws(WorkerError) {
        try worker.stop(timeout: timeout)
    }

    /// Whether the committer's thread runs (started, not ended).
    package var isThreadRunning: Bool { worker.isRunning }

    /// Calls `listener` after every transaction that stored records — once a transaction, however
    /// many stores' parts it held — on the thread that wrote it. One listener per `key`: a
    /// later one with the same key replaces it, so each store of a service can register the
    /// service's own (its metrics) and the transaction is still counted once.
    public func onTransaction(key: ObjectIdentifier, _ listener: @escaping TransactionListener) {
        state.withLock { $0.transactionListeners[key] = listener }
    }

    // MARK: - What journals call

    /// Registers `journal`; false when the thread does not run.
    func register(_ journal: GroupCommitJournal) -> Bool {
        state.withLock { state in
            guard state.running, !state.stopping else { return false }
            state.registered[ObjectIdentifier(journal)] = journal
            return true
        }
    }

    /// `journal` may have a batch (or is stopping): the thread looks at it next.
    func wake(_ journal: GroupCommitJournal, stopping: Bool = false) {
        let id = ObjectIdentifier(journal)
        let notify = state.withLock { state -> Bool in
            if stopping { state.stopRequests &+= 1 }
            guard state.readyIDs.insert(id).inserted else { return stopping }
            state.ready.append(journal)
            return true
        }
        if notify { state.notifyAll() }
    }

    /// A record of `journal` is claimed until `until`: the thread looks at it again then, unless
    /// woken earlier. Wakes the thread only when it waits without a timeout.
    func noteClaim(of journal: GroupCommitJournal, until: ContinuousClock.Instant) {
        let linger = policy.claimLinger
        let notify = state.withLock { state -> Bool in
            state.rechecks[ObjectIdentifier(journal)] = Recheck(journal: journal, at: until)
            state.lingerUntil = max(state.lingerUntil, until + linger)
            return state.waitsUntimed
        }
        if notify { state.notifyAll() }
    }

    /// Writes one store's part on the calling thread
    /// (``GroupCommitJournal/commitOnCallingThread(through:)``), counted with the others.
    func writeOnCallingThread(_ part: JournalWrite) -> JournalError? {
        outcomes(of: [part]).first ?? nil
    }

    // MARK: - The thread

    private func run() {
        var pause = policy.firstRetryPause
        while true {
            let (candidates, stopping) = nextCandidates()
            var parts: [(journal: GroupCommitJournal, batch: GroupCommitJournal.Batch)] = []
            var rechecks: [(GroupCommitJournal, ContinuousClock.Instant)] = []
            let now = clock.now
            for journal in candidates {
                switch journal.takeBatch(now: now) {
                case .batch(let batch): parts.append((journal, batch))
                case .claimed(let until): rechecks.append((journal, until))
                case .idle: break
                case .finished: unregister(journal)
                }
            }
            if !rechecks.isEmpty {
                state.withLock { state in
                    for (journal, until) in rechecks {
                        state.rechecks[ObjectIdentifier(journal)] = Recheck(journal: journal, at: until)
                    }
                }
            }
            if parts.isEmpty {
                if stopping, state.withLock({ $0.registered.isEmpty }) { break }
                continue
            }
            // Loops over indices, not `zip` or closures over the parts: those copied each part
            // (a tuple of a journal and arrays, through the runtime's tuple witnesses) per store.
            var writes: [JournalWrite] = []
            writes.reserveCapacity(parts.count)
            var transactionRecords = 0
            for index in parts.indices {
                let batch = parts[index].batch
                writes.append(JournalWrite(storage: parts[index].journal.storage, records: batch.records, answers: batch.answers))
                transactionRecords += batch.records.count
            }
            let results = outcomes(of: writes)
            var retryable = false
            var releases: [GroupCommitJournal.Release] = []
            releases.reserveCapacity(parts.count)
            for index in parts.indices {
                let error = results[index]
                let release = parts[index].journal.completeCommit(
                    of: parts[index].batch, error: error, transactionRecords: transactionRecords, deferringWaiters: true
                )
                if let release { releases.append(release) }
                if let error, error.code != .closed { retryable = true }
            }
            // Every store's listeners first (each store's publications in version order), then
            // every waiter: the answers go out together.
            for release in releases {
                release.run()
            }
            if retryable {
                // Retry after a pause that grows, unless a stop is asked for meanwhile.
                let requests = state.withLock { $0.stopRequests }
                _ = state.wait(timeout: pause) { $0.stopRequests != requests }
                pause = min(pause * 2, policy.longestRetryPause)
            } else {
                pause = policy.firstRetryPause
            }
        }
        state.withLock { $0.running = false }
    }

    /// Waits for journals to look at — woken ones, and claimed ones whose claim lapsed — and
    /// returns them, with whether the committer is stopping (then every registered journal is
    /// told to stop and looked at).
    private func nextCandidates() -> ([GroupCommitJournal], Bool) {
        let patience = policy.claimPatience
        let clock = clock
        let timed = state.withLock { state -> Bool in
            let timed = !state.rechecks.isEmpty || clock.now < state.lingerUntil
            state.waitsUntimed = !timed
            return timed
        }
        let collect = { (state: inout State, _: Bool) -> ([GroupCommitJournal], Bool) in
            state.waitsUntimed = false
            // Not `Array(state.ready)` when empty: copying an empty `Deque` writes the count of
            // the runtime's shared empty-array storage, which ThreadSanitizer reports as a race
            // between committer threads (a benign write of 0, swiftlang/swift#27808).
            var candidates = state.ready.isEmpty ? [] : Array(state.ready)
            // Their storage kept: over many stores a round takes a journal per store of the
            // commit, and a set emptied without it was allocated and grown again every round.
            state.ready.removeAll(keepingCapacity: true)
            state.readyIDs.removeAll(keepingCapacity: true)
            if !state.rechecks.isEmpty {
                // Removed after the walk: removing while iterating copied the whole dictionary
                // (the iterator holds it) at every removal.
                let now = clock.now
                var lapsed: [ObjectIdentifier] = []
                for (id, recheck) in state.rechecks where !(now < recheck.at) {
                    lapsed.append(id)
                    candidates.append(recheck.journal)
                }
                for id in lapsed {
                    state.rechecks[id] = nil
                }
            }
            if state.stopping {
                candidates = Array(state.registered.values)
            }
            return (candidates, state.stopping)
        }
        let (candidates, stopping) = timed
            ? state.withLock(waitingUntil: { !$0.ready.isEmpty || $0.stopping }, timeout: patience, collect)
            : state.withLock(waitingUntil: { !$0.ready.isEmpty || $0.stopping || !$0.rechecks.isEmpty }) { collect(&$0, true) }
        if stopping {
            for journal in candidates { journal.requestStop() }
        }
        return (candidates, stopping)
    }

    /// Writes `parts` in one transaction, counts it and tells the transaction listeners; the
    /// error of each part (nil: stored).
    private func outcomes(of parts: [JournalWrite]) -> [JournalError?] {
        let started = ContinuousClock.now
        var results: [JournalError?]
        do throws(JournalError) {
            results = try transactions.write(parts)
        } catch {
            results = parts.map { _ in error }
        }
        if results.count != parts.count {
            // Not what `JournalTransactions` promises: nothing is known stored, every part retried.
            let error = JournalError(code: .unusable, message: "the journal's transaction answered \(results.count) results for \(parts.count) parts")
            results = parts.map { _ in error }
        }
        let duration = ContinuousClock.now - started
        var stored = 0
        for index in parts.indices where results[index] == nil {
            stored += parts[index].records.count
        }
        let listeners = state.withLock { state -> [TransactionListener] in
            state.statistics.transactions += 1
            if parts.count > 1 { state.statistics.sharedTransactions += 1 }
            state.statistics.records += UInt64(stored)
            if results.contains(where: { $0 != nil }) { state.statistics.failures += 1 }
            return stored > 0 && !state.transactionListeners.isEmpty ? Array(state.transactionListeners.values) : []
        }
        for listener in listeners {
            listener(stored, duration)
        }
        return results
    }

    private func unregister(_ journal: GroupCommitJournal) {
        let id = ObjectIdentifier(journal)
        state.withLock { state in
            state.registered[id] = nil
            state.rechecks[id] = nil
        }
    }
}
