public import Journal

/// The log as the view of the store `default` (``PostgresSharedLog/view(of:)``): what a replica
/// of one store, and the root routes, use.
extension PostgresSharedLog {
    public func head() throws(JournalError) -> UInt64 { try defaultStore.head() }

    /// The log's identity, made when the log was created: the store `default`'s incarnation.
    public func identity() throws(JournalError) -> String { try defaultStore.identity() }

    public func start(
        applied: UInt64,
        onStatus: @escaping @Sendable (SharedLogStatus) -> Void,
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void,
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) throws(JournalError) {
        try defaultStore.start(applied: applied, onStatus: onStatus, verify: verify, apply: apply)
    }

    public func submit(_ group: LogGroup, completion: @escaping @Sendable (Result<LogGroupOutcome, JournalError>) -> Void) {
        defaultStore.submit(group, completion: completion)
    }

    public func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool {
        defaultStore.waitUntilApplied(version, timeout: timeout)
    }

    public func whenApplied(_ version: UInt64, timeout: Duration, _ callback: @escaping @Sendable (Bool) -> Void) {
        defaultStore.whenApplied(version, timeout: timeout, callback)
    }

    public var applied: UInt64 { defaultStore.applied }

    public var knownHead: UInt64 { defaultStore.knownHead }

    public func onCommit(_ listener: @escaping @Sendable (Int, Duration) -> Void) { defaultStore.onCommit(listener) }

    public var status: SharedLogStatus { defaultStore.status }

    public var appendFailure: JournalError? { defaultStore.appendFailure }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? { try defaultStore.answer(forKey: key) }

    public func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void) {
        defaultStore.lookUpAnswer(forKey: key, completion: completion)
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) { try defaultStore.removeAnswers(keptBefore: time) }

    public func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError) {
        try defaultStore.removeAnswer(forKey: key, keptBefore: time)
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try defaultStore.records(after: version, limit: limit)
    }

    public func register(replica name: String, instance: String?, snapshot: UInt64) throws(JournalError) -> SharedLogRegistration {
        try defaultStore.register(replica: name, instance: instance, snapshot: snapshot)
    }

    public func renewOtherRegistrations(of name: String) throws(JournalError) -> Int {
        try defaultStore.renewOtherRegistrations(of: name)
    }

    public func forgetReplicas(silentFor silence: Duration) throws(JournalError) -> [ForgottenReplica] {
        try defaultStore.forgetReplicas(silentFor: silence)
    }

    public func removeRecords(
        keeping versions: UInt64, recordedBefore cutoff: Int64?, ignoringReplicasSilentFor silence: Duration?
    ) throws(JournalError) -> UInt64? {
        try defaultStore.removeRecords(keeping: versions, recordedBefore: cutoff, ignoringReplicasSilentFor: silence)
    }
}
