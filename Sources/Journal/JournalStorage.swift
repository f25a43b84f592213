/// Where a journal keeps its records and snapshots: SQLite in a data directory (`SQLiteJournal`),
/// later a shared PostgreSQL log. ``GroupCommitJournal`` calls ``append(_:)`` and
/// ``saveSnapshot(_:)`` from its one thread; the read calls may come from any thread.
public protocol JournalStorage: Sendable {
    /// Where the data is kept, for messages that must say where to look: the journal file's
    /// path, or a description such as "memory".
    var location: String { get }

    /// The store whose journal this is: ``StoreID/default`` unless the storage is one store's
    /// view of a journal shared by many (its messages name the store).
    var store: StoreID { get }

    /// Reads what is stored and checks it: the newest snapshot, and that records run without a
    /// gap up to the last one.
    func recover() throws(JournalError) -> JournalRecovery

    /// Stores `records` (consecutive versions, oldest first) and `answers` in one transaction; when
    /// it returns, they are as durable as the storage's sync mode makes them. On a throw nothing of
    /// them is stored. An answer whose key is already kept replaces it.
    func append(_ records: [JournalRecord], answers: [KeptAnswer]) throws(JournalError)

    /// Stores a snapshot (keeping the previous one too, in case this one is found unusable).
    func saveSnapshot(_ snapshot: JournalSnapshot) throws(JournalError)

    /// The newest snapshot whose version is at most `version`, if one is kept.
    func snapshot(atOrBefore version: UInt64) throws(JournalError) -> JournalSnapshot?

    /// The answer kept for `key`, if any (expired ones too, until removed).
    func answer(forKey key: String) throws(JournalError) -> KeptAnswer?

    /// ``answer(forKey:)`` without blocking the caller where the storage can: `completion` runs
    /// once, on any thread. The default answers at once, on the caller's thread; the shared log
    /// looks up the keys of concurrent requests together, on a thread of its own.
    func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void)

    /// Removes the answers kept before `time` (milliseconds since 1970).
    func removeAnswers(keptBefore time: Int64) throws(JournalError)

    /// Removes the answer kept for `key` if it was kept before `time` (it expired), so that the
    /// key can be kept again. Storages whose ``append(_:answers:)`` replaces a kept key need
    /// nothing (the default); the shared log, which refuses a key it holds, removes it here.
    func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError)

    /// Up to `limit` records with a version greater than `version`, oldest first.
    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord]

    /// The newest version whose record was reduced before `time` (milliseconds since 1970), if any.
    func newestVersion(recordedBefore time: Int64) throws(JournalError) -> UInt64?

    /// Removes records up to and including `version` (retention), never past the older of the
    /// two newest snapshots, and none while fewer than two are kept: should the newest be found
    /// damaged, the older one and the records after it rebuild the store.
    func removeRecords(through version: UInt64) throws(JournalError)

    /// Records that a server of `role` uses the storage, or throws ``JournalErrorCode/unusable``
    /// (a message naming the storage and what to do) when one of the other role used it before.
    /// Returns true when the storage recorded no role yet but holds snapshots and no records: an
    /// earlier build's data directory whose kind cannot be told (a replica's, or a single node's
    /// whose retention removed every record), which the caller should warn about. Storages that
    /// do not outlive the process need nothing (the default).
    @discardableResult
    func claim(for role: JournalRole) throws(JournalError) -> Bool

    /// The identity of the shared log whose snapshots the storage keeps (a replica's data
    /// directory), or nil when none was recorded: a server on its own, a replica that never
    /// reached its log, or an earlier build's directory.
    func sharedLogIdentity() throws(JournalError) -> String?

    /// Records that the storage's snapshots belong to the shared log `identity`.
    func recordSharedLogIdentity(_ identity: String) throws(JournalError)

    /// Closes the storage; later calls throw ``JournalErrorCode/closed``.
    func close()

    /// The group commit this storage's ``GroupCommitJournal`` shares with the other stores of its
    /// database (one transaction, one sync for many stores' batches); nil, the default: the
    /// journal commits on a committer of its own.
    var sharedCommitter: JournalCommitter? { get }
}

extension JournalStorage {
    /// The default store: a storage of one store.
    public var store: StoreID { .default }

    /// None: a storage of one store commits on its own.
    public var sharedCommitter: JournalCommitter? { nil }

    /// Looks `key` up at once, on the caller's thread.
    public func lookUpAnswer(forKey key: String, completion: @escaping @Sendable (Result<KeptAnswer?, JournalError>) -> Void) {
        do throws(JournalError) {
            completion(.success(try answer(forKey: key)))
        } catch {
            completion(.failure(error))
        }
    }

    /// Nothing to record: the storage ends with the process.
    @discardableResult
    public func claim(for role: JournalRole) throws(JournalError) -> Bool { false }

    /// None: the storage ends with the process.
    public func sharedLogIdentity() throws(JournalError) -> String? { nil }

    /// Nothing to record: the storage ends with the process.
    public func recordSharedLogIdentity(_ identity: String) throws(JournalError) {}

    /// Nothing to do: ``append(_:answers:)`` replaces an answer whose key is already kept.
    public func removeAnswer(forKey key: String, keptBefore time: Int64) throws(JournalError) {}

    /// Stores `records` in one transaction, with no kept answers.
    public func append(_ records: [JournalRecord]) throws(JournalError) {
        try append(records, answers: [])
    }
}
