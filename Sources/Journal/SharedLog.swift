/// One totally ordered action log that several replicas of a store share (PostgreSQL,
/// `PostgresJournal`): any replica appends, the log assigns the versions, every replica applies
/// every entry in version order.
///
/// A replica's write path: run middleware once (the store proposes, it does not reduce), then
/// ``submit(_:completion:)`` the request's actions as one group; once it is appended, wait with
/// ``waitUntilApplied(_:timeout:)`` until the replica's own follower applied it, so that a client
/// reads its writes on the replica it wrote to. The read path: ``start(applied:apply:)`` hands
/// every entry after `applied` to `apply`, in order, in pages, on the follower's thread.
public protocol SharedLog: Sendable {
    /// The newest version in the log (0 when empty); connects if needed.
    func head() throws(JournalError) -> UInt64

    /// Starts appending and following: `apply` gets every entry after `applied`, oldest first,
    /// in pages, on one thread; when it throws, following stops there for good (never skips) and
    /// ``status`` says why. Throws when the threads cannot start.
    /// `onStatus` hears every change of ``status`` (for a log line).
    func start(
        applied: UInt64,
        onStatus: @escaping @Sendable (SharedLogStatus) -> Void,
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) throws(JournalError)

    /// Queues `group` for the next append (groups queued meanwhile go in the same transaction);
    /// a group without actions keeps only its answer (``LogGroupOutcome/kept``).
    /// `completion` hears what became of it, or why it could not be appended
    /// (``JournalError/Code/writeFailed``: not stored; ``JournalError/Code/outcomeUnknown``: may
    /// be stored).
    func submit(_ group: LogGroup, completion: @escaping @Sendable (Result<LogGroupOutcome, JournalError>) -> Void)

    /// Waits until this replica applied `version`, or `timeout` passes; true if it did.
    func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool

    /// Calls `callback(true)` once this replica applied `version`, `callback(false)` if `timeout`
    /// passes first or following stops; without blocking the caller. The callback must be quick.
    func whenApplied(_ version: UInt64, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void)

    /// The last version this replica applied.
    var applied: UInt64 { get }

    /// The newest version this replica knows the log holds — announced by a doorbell, appended
    /// here, or read — never below ``applied``: `knownHead - applied` is how far it lags.
    var knownHead: UInt64 { get }

    /// Calls `listener` after every transaction this replica appended, with its actions and how
    /// long it took (for metrics); a listener added later hears the commits from then on.
    func onCommit(_ listener: @escaping @Sendable (_ actions: Int, _ duration: Duration) -> Void)

    /// Where this replica's follower stands.
    var status: SharedLogStatus { get }

    /// Why appends fail right now (cleared by the next one that succeeds), or nil.
    var appendFailure: JournalError? { get }

    /// The answer kept for an idempotency key by whichever replica received that request.
    func answer(forKey key: String) throws(JournalError) -> KeptAnswer?

    /// ``answer(forKey:)`` without blocking the caller: `completion` runs once, on any thread.
    func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void)

    /// Forgets the idempotency keys (and their answers) kept before `time` (milliseconds since
    /// 1970); the records stay. The log refuses a key it holds, so an expired key is removed
    /// before it can be used again.
    func removeAnswers(keptBefore time: Int64) throws(JournalError)

    /// Forgets `key` (and its answer) if it was kept before `time`.
    func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError)

    /// Up to `limit` records with a version greater than `version`, oldest first (for `GET
    /// /actions` and streams resuming beyond the event ring).
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord]

    /// Appends what is queued, stops following and closes the connections.
    func stop()
}

extension SharedLog {
    /// ``start(applied:onStatus:apply:)`` without a status handler.
    public func start(applied: UInt64, apply: @escaping @Sendable ([LogEntry]) throws -> Void) throws(JournalError) {
        try start(applied: applied, onStatus: { _ in }, apply: apply)
    }
}

/// Where a replica's follower stands.
public enum SharedLogStatus: Sendable, Equatable {
    /// Not connected yet, or catching up with the head read at start.
    case catchingUp
    /// Connected; every entry up to the head it read last is applied.
    case following
    /// The log cannot be reached; retrying. The message says why.
    case unavailable(String)
    /// Stopped for good: shut down, or an entry could not be applied (the reason).
    case stopped(String?)
}
