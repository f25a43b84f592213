import ConcurrencyKit

/// A journal kept in memory: for tests, with injectable commit failures (disk full), commits that
/// can be held back (a slow disk), a simulated crash that keeps only what was committed, and a
/// change signal (``wait(timeout:until:)``) to wait on instead of polling.
public final class MemoryJournalStorage: JournalStorage {
    /// Nothing on disk: "memory".
    public var location: String { "memory" }

    /// What one successful ``append(_:answers:)`` stored: the transaction's contents.
    public struct Commit: Sendable, Equatable {
        /// The versions of the records it held, oldest first.
        public var versions: [UInt64]
        /// The keys of the answers it kept.
        public var answerKeys: [String]

        /// Creates a commit.
        public init(versions: [UInt64], answerKeys: [String]) {
            self.versions = versions
            self.answerKeys = answerKeys
        }
    }

    private struct State {
        var commits: [Commit] = []
        var records: [JournalRecord] = []
        var snapshots: [JournalSnapshot] = []
        var answers: [String: KeptAnswer] = [:]
        var appendFailure: JournalError?
        var readFailure: (error: JournalError, version: UInt64)?
        var afterPageRead: (@Sendable () -> Void)?
        var closed = false
        var appendCalls = 0
        var holdingCommits = false
        var commitsHeld = 0
        var appendThreads: [String] = []
    }

    private let state = Lock(State())
    /// Told after every change of what is stored (commits, snapshots, answers, removals).
    private let changes = ChangeSignal()

    /// An empty storage.
    public init() {}

    /// Makes every later ``append(_:)`` throw `error` (nil: succeed again).
    public func failAppends(with error: JournalError?) {
        state.withLock { $0.appendFailure = error }
    }

    /// Makes every later ``records(after:limit:)`` that would return the record of `version`
    /// throw `error` (nil: succeed again): a page the storage can no longer read, holding it.
    public func failReads(with error: JournalError?, atVersion version: UInt64) {
        state.withLock { $0.readFailure = error.map { ($0, version) } }
    }

    /// Runs `action` once, right after the next ``records(after:limit:)`` that returns more than one
    /// record, outside the storage's lock: to change the storage between one reader's statements
    /// (retention in the middle of a `GET /actions` page).
    public func afterNextPageRead(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.afterPageRead = action }
    }

    /// Makes every later ``append(_:)`` wait until ``releaseCommits()``.
    public func holdCommits() {
        state.withLock { state in
            state.holdingCommits = true
            state.commitsHeld = 0
        }
    }

    /// Lets held and later commits go on.
    public func releaseCommits() {
        state.withLock { $0.holdingCommits = false }
        state.notifyAll()
    }

    /// Waits until `condition` holds for the storage, checking it again after every change of
    /// what it stores (a commit, a snapshot, an answer, a removal); false after `timeout`.
    /// `condition` may read the storage; it must not change it.
    public func wait(timeout: Duration, until condition: (MemoryJournalStorage) -> Bool) -> Bool {
        changes.wait(timeout: timeout) { condition(self) }
    }

    /// Waits until a commit is held back; false after `timeout`.
    public func waitUntilACommitIsHeld(timeout: Duration) -> Bool {
        state.wait(timeout: timeout) { $0.commitsHeld > 0 }
    }

    /// Every record committed so far.
    public var committedRecords: [JournalRecord] {
        state.withLock { $0.records }
    }

    /// Every successful commit so far, oldest first.
    public var commits: [Commit] {
        state.withLock { $0.commits }
    }

    /// Every answer kept so far, by key.
    public var keptAnswers: [String: KeptAnswer] {
        state.withLock { $0.answers }
    }

    /// How many times ``append(_:)`` was called (commits attempted).
    public var appendCalls: Int {
        state.withLock { $0.appendCalls }
    }

    /// A new storage holding what this one committed: the state after a crash.
    public func survivorOfCrash() -> MemoryJournalStorage {
        let survivor = MemoryJournalStorage()
        let (records, snapshots, answers) = state.withLock { ($0.records, $0.snapshots, $0.answers) }
        survivor.state.withLock { state in
            state.records = records
            state.snapshots = snapshots
            state.answers = answers
        }
        return survivor
    }

    public func recover() throws(JournalError) -> JournalRecovery {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            let snapshot = state.snapshots.max { $0.version < $1.version }
            let last = max(state.records.last?.version ?? 0, snapshot?.version ?? 0)
            return JournalRecovery(snapshot: snapshot, lastVersion: last, earliestVersion: state.records.first?.version)
        }
    }

    /// The name of the thread of each ``append(_:answers:)`` so far, oldest first (which thread
    /// commits: the journal's own, or a request's).
    public var appendThreads: [String] {
        state.withLock { $0.appendThreads }
    }

    public func append(_ records: [JournalRecord], answers: [KeptAnswer]) throws(JournalError) {
        // Failed attempts count too (``appendCalls``).
        defer { changes.changed() }
        let thread = currentThreadName()
        state.withLock { $0.appendThreads.append(thread) }
        let held = state.withLock { state -> Bool in
            if state.holdingCommits { state.commitsHeld += 1 }
            return state.holdingCommits
        }
        if held {
            state.notifyAll()
            state.withLock(waitingUntil: { !$0.holdingCommits }) { _ in }
        }
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            state.appendCalls += 1
            if let failure = state.appendFailure { throw failure }
            state.records += records
            state.commits.append(Commit(versions: records.map(\.version), answerKeys: answers.map(\.key)))
            for answer in answers {
                state.answers[answer.key] = answer
            }
        }
    }

    public func saveSnapshot(_ snapshot: JournalSnapshot) throws(JournalError) {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            state.snapshots.append(snapshot)
            state.snapshots = Array(state.snapshots.sorted { $0.version < $1.version }.suffix(2))
        }
        changes.changed()
    }

    public func snapshot(atOrBefore version: UInt64) throws(JournalError) -> JournalSnapshot? {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            return state.snapshots.filter { $0.version <= version }.max { $0.version < $1.version }
        }
    }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            return state.answers[key]
        }
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            state.answers = state.answers.filter { $0.value.time >= time }
        }
        changes.changed()
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        var hook: (@Sendable () -> Void)?
        let records = try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            let records = Array(state.records.lazy.filter { $0.version > version }.prefix(max(0, limit)))
            if let failure = state.readFailure, records.contains(where: { $0.version == failure.version }) {
                throw failure.error
            }
            if records.count > 1 {
                hook = state.afterPageRead
                state.afterPageRead = nil
            }
            return records
        }
        hook?()
        return records
    }

    public func newestVersion(recordedBefore time: Int64) throws(JournalError) -> UInt64? {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            return state.records.last { $0.time < time }?.version
        }
    }

    public func removeRecords(through version: UInt64) throws(JournalError) {
        try state.withLock { state throws(JournalError) in
            try Self.checkOpen(state)
            // As the SQLite storage: nothing while fewer than two snapshots are kept (should the
            // one be found damaged, the records rebuild the store), then never past the older.
            guard state.snapshots.count >= 2 else { return }
            let limit = min(version, state.snapshots[state.snapshots.count - 2].version)
            state.records.removeAll { $0.version <= limit }
        }
        changes.changed()
    }

    public func close() {
        state.withLock { $0.closed = true }
    }

    private static func checkOpen(_ state: State) throws(JournalError) {
        if state.closed { throw JournalError(code: .closed, message: "the journal is closed") }
    }
}
