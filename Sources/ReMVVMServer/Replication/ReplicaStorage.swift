import Journal
import JSONPatch

/// What a replica of a shared log reads as its journal: snapshots from its own local storage
/// (snapshots stay per replica), records and idempotency answers from the shared log. For the
/// code that reads a journal (``JournalHistory``, `GET /actions`, ``IdempotencyKeys``); nothing
/// appends through it: a replica appends with ``Journal/SharedLog/submit(_:completion:)``.
///
/// Records are never removed through it: one replica's snapshot says nothing about the others',
/// so ``ReplicaRuntime`` removes them from the shared log itself, before the oldest snapshot any
/// replica registered there (`docs/replicas.md`, "Retention").
struct ReplicaStorage: JournalStorage {
    let snapshots: any JournalStorage
    let log: any SharedLog

    /// Where the snapshots are; the records are in the shared log.
    var location: String { snapshots.location }

    func recover() throws(JournalError) -> JournalRecovery {
        try snapshots.recover()
    }

    func append(_ records: [JournalRecord], answers: [KeptAnswer]) throws(JournalError) {
        throw JournalError(code: .unusable, message: "a replica appends to the shared log, not to its local snapshot storage")
    }

    func saveSnapshot(_ snapshot: JournalSnapshot) throws(JournalError) {
        try snapshots.saveSnapshot(snapshot)
    }

    func snapshot(atOrBefore version: UInt64) throws(JournalError) -> JournalSnapshot? {
        try snapshots.snapshot(atOrBefore: version)
    }

    func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try log.answer(forKey: key)
    }

    func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void) {
        log.lookUpAnswer(forKey: key, completion: completion)
    }

    /// Answers live on the shared log's rows: their keys are forgotten there (the rows stay).
    func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try log.removeAnswers(keptBefore: time)
    }

    /// The shared log refuses a key it holds: an expired one is forgotten before it is used again.
    func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError) {
        try log.removeAnswer(forKey: key, keptBefore: time)
    }

    /// The log's records with their payloads in the server's compact form: PostgreSQL prints a
    /// `jsonb` its own way (`{"b": 1, "a": 2}`: spaces, its key order), while `GET /actions` and
    /// the events rebuilt from the log must show the bytes a single server and the live events
    /// show (compact, keys in code point order). Every reader of the log's history comes here
    /// (the action log, streams resumed from the log); the follower applies entries it reads
    /// itself, without this. A payload that does not parse (PostgreSQL's `jsonb` always does) is
    /// passed on as stored.
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try log.records(after: version, limit: limit).map { record in
            guard !record.payload.isEmpty, let payload = try? JSON(parsing: record.payload) else { return record }
            return JournalRecord(version: record.version, type: record.type, payload: payload.canonicalBytes, time: record.time)
        }
    }

    func newestVersion(recordedBefore time: Int64) throws(JournalError) -> UInt64? {
        nil
    }

    func removeRecords(through version: UInt64) throws(JournalError) {}

    func close() {
        snapshots.close()
    }
}
