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

    /// The log's identity, made when the log was created: another log (another database, or
    /// the same one made anew) has another. A replica's snapshots belong to one log. Connects
    /// if needed.
    func identity() throws(JournalError) -> String

    /// Starts appending and following: `apply` gets every entry after `applied`, oldest first,
    /// in pages, on one thread; when it throws, following stops there for good (never skips) and
    /// ``status`` says why. Throws when the threads cannot start.
    /// `onStatus` hears every change of ``status`` (for a log line). `verify` hears the log's
    /// identity and head each time the follower connects, before it reads: when it throws (the
    /// log is not the one this replica follows), following stops for good, saying why.
    func start(
        applied: UInt64,
        onStatus: @escaping @Sendable (SharedLogStatus) -> Void,
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void,
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) throws(JournalError)

    /// Queues `group` for the next append (groups queued meanwhile go in the same transaction);
    /// a group without actions keeps only its answer (``LogGroupOutcome/kept``).
    /// `completion` hears what became of it, or why it could not be appended
    /// (``JournalErrorCode/writeFailed``: not stored; ``JournalErrorCode/outcomeUnknown``: may
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
    /// /actions` and streams resuming beyond the event ring). Records removed by
    /// ``removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:)`` are missing at the start: the first record
    /// returned may be later than `version + 1`.
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord]

    /// Tells the log that replica `name` — the process `instance` (unique to one run of one
    /// process; nil: none, the name is free for the next run) — keeps a local snapshot of version `snapshot` (0: none), replacing what it said
    /// before, and that it is alive: a running replica calls it again from time to time with the
    /// same snapshot (renewal). ``removeRecords(keeping:recordedBefore:ignoringReplicasSilentFor:)``
    /// keeps every record after the oldest snapshot of the replicas registered. Returns the log's
    /// extent as seen once registered: records after `snapshot` missing from it were removed
    /// before the registration, and none will be removed after it (while the registration is
    /// renewed); and who had registered the name before. Registers nothing when `snapshot` is
    /// past the head or records after it are missing (that replica cannot follow this log).
    func register(replica name: String, instance: String?, snapshot: UInt64) throws(JournalError) -> SharedLogRegistration

    /// Renews every registration of replica `name` in the log's stores other than this one (their
    /// snapshots as registered): a replica that runs keeps the snapshots of every store it loaded,
    /// loaded now or not, so their records stay for it however long it does not load them.
    /// Returns how many. A log of one store has none (the default).
    func renewOtherRegistrations(of name: String) throws(JournalError) -> Int

    /// Deletes the registrations of the replicas that have not renewed theirs for `silence`: they
    /// are gone, and their snapshots hold nothing back. Returns them.
    func forgetReplicas(silentFor silence: Duration) throws(JournalError) -> [ForgottenReplica]

    /// Removes the oldest records that every registered replica's snapshot has passed, keeping
    /// `versions` versions before the oldest of those snapshots and every record recorded at or
    /// after `cutoff` (milliseconds since 1970; nil: no such bound); registrations not renewed
    /// for `silence` (nil: however long) count as gone. Removes nothing while no replica is
    /// registered. The idempotency answers on removed records stay kept (their keys are still
    /// refused until they expire). Returns the newest version removed, or nil.
    func removeRecords(
        keeping versions: UInt64, recordedBefore cutoff: Int64?, ignoringReplicasSilentFor silence: Duration?
    ) throws(JournalError) -> UInt64?

    /// Appends what is queued, stops following and closes the connections.
    func stop()
}

extension SharedLog {
    /// None: a log of one store.
    public func renewOtherRegistrations(of name: String) throws(JournalError) -> Int { 0 }

    /// ``start(applied:onStatus:verify:apply:)`` without a status handler or a check of the log.
    public func start(applied: UInt64, apply: @escaping @Sendable ([LogEntry]) throws -> Void) throws(JournalError) {
        try start(applied: applied, onStatus: { _ in }, verify: { _, _ in }, apply: apply)
    }
}

/// Which versions a shared log holds: its records run from ``earliest`` through ``head``
/// without gaps (the ones before ``earliest`` were removed by retention).
public struct SharedLogExtent: Sendable, Equatable {
    /// The oldest record's version; nil when the log holds no record.
    public var earliest: UInt64?
    /// The newest version appended (0 when nothing ever was).
    public var head: UInt64

    /// Creates an extent.
    public init(earliest: UInt64?, head: UInt64) {
        self.earliest = earliest
        self.head = head
    }

    /// Whether every record after `version` is still in the log: what a replica restored at
    /// `version` needs in order to follow it.
    public func holdsEveryRecord(after version: UInt64) -> Bool {
        guard version < head else { return true }
        guard let earliest else { return false }
        return earliest <= version + 1
    }
}

/// What ``SharedLog/register(replica:instance:snapshot:)`` found and left.
public struct SharedLogRegistration: Sendable, Equatable {
    /// The versions the log holds once registered.
    public var extent: SharedLogExtent
    /// The process that had registered the name before (its `instance`), if any; nil also for
    /// a registration made by a build that did not record it.
    public var previousInstance: String?
    /// How many whole seconds before this registration the previous one was made or renewed.
    public var previousAgeSeconds: Int64?

    /// Creates a registration.
    public init(extent: SharedLogExtent, previousInstance: String? = nil, previousAgeSeconds: Int64? = nil) {
        self.extent = extent
        self.previousInstance = previousInstance
        self.previousAgeSeconds = previousAgeSeconds
    }

    /// Whether the log registered `snapshot`: it is not past the head, and every record after it
    /// is still there.
    public func registered(_ snapshot: UInt64) -> Bool {
        snapshot <= extent.head && extent.holdsEveryRecord(after: snapshot)
    }
}

/// A replica registration deleted by ``SharedLog/forgetReplicas(silentFor:)``: the replica had
/// not renewed it for longer than allowed, so it counts as gone and its snapshot no longer holds
/// records back.
public struct ForgottenReplica: Sendable, Equatable {
    /// The replica's name (`replicaName`).
    public var name: String
    /// The version of the snapshot it had registered.
    public var snapshot: UInt64
    /// How long it had not renewed its registration, in whole seconds.
    public var silentSeconds: Int64

    /// Creates a forgotten replica.
    public init(name: String, snapshot: UInt64, silentSeconds: Int64) {
        self.name = name
        self.snapshot = snapshot
        self.silentSeconds = silentSeconds
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
