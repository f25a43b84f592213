public import Journal
import Synchronization

/// One store's journal in a file shared by many (``SQLiteJournalStorage/storage(for:)``): its
/// records, snapshots and kept answers, as a ``Journal/JournalStorage`` that knows nothing of the
/// others. Give its ``Journal/GroupCommitJournal`` the file's ``SQLiteJournalStorage/commits`` so
/// that its commits share transactions with the other stores'.
///
/// ``close()`` closes the view only (a store unloaded); the file stays open for the others. A view
/// of a store deleted meanwhile reads nothing and its commits are refused
/// (``Journal/JournalErrorCode/closed``): a store created again with the same id is another
/// store, with rows of its own.
public final class SQLiteStoreJournal: JournalStorage {
    /// The file.
    public let database: SQLiteJournalStorage
    /// The store and its key in the file.
    let scope: StoreScope
    /// For a replica's store (``SQLiteJournalStorage/replicaStorage(for:)``): the incarnation of
    /// the shared log's store these snapshots belong to; nil: the file's shared log, if any.
    let logIdentity: String?
    /// Set once by ``close()``. An atomic, not a lock: every commit of the store asks
    /// (``SQLiteJournalStorage/write(_:)``), and over many stores each ask touched a cold lock.
    private let closed = Atomic<Bool>(false)

    init(database: SQLiteJournalStorage, scope: StoreScope, logIdentity: String? = nil) {
        self.database = database
        self.scope = scope
        self.logIdentity = logIdentity
    }

    /// The store.
    public var store: StoreID { scope.id }

    /// The file's shared group commit (``SQLiteJournalStorage/commits``): the stores other than
    /// `default` share one thread and one transaction per commit. (`default`, the file itself,
    /// keeps a committer of its own: the one-store path stays as measured.)
    public var sharedCommitter: JournalCommitter? { database.commits }

    /// The file's path, and the store's id unless it is `default`.
    public var location: String { database.location(of: scope) }

    /// Whether ``close()`` was called.
    var isClosed: Bool { closed.load(ordering: .acquiring) }

    public func recover() throws(JournalError) -> JournalRecovery {
        try openFile().recover(scope)
    }

    public func append(_ records: [JournalRecord], answers: [KeptAnswer]) throws(JournalError) {
        try openFile().append(records, answers: answers, to: scope)
    }

    /// Stores `snapshot`. A store of the server's own journal does not wait for the snapshot's
    /// sync (the next commit syncs it: ``SQLiteJournalStorage/saveSnapshot(_:of:synced:)``); a
    /// replica's store does, since the shared log is told of the snapshot next and may then
    /// remove the records before it.
    public func saveSnapshot(_ snapshot: JournalSnapshot) throws(JournalError) {
        try openFile().saveSnapshot(snapshot, of: scope, synced: logIdentity != nil)
    }

    public func snapshot(atOrBefore version: UInt64) throws(JournalError) -> JournalSnapshot? {
        try openFile().snapshot(atOrBefore: version, of: scope)
    }

    public func answer(forKey key: String) throws(JournalError) -> KeptAnswer? {
        try openFile().answer(forKey: key, of: scope)
    }

    public func removeAnswers(keptBefore time: Int64) throws(JournalError) {
        try openFile().removeAnswers(keptBefore: time, of: scope)
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try openFile().records(after: version, limit: limit, of: scope)
    }

    public func newestVersion(recordedBefore time: Int64) throws(JournalError) -> UInt64? {
        try openFile().newestVersion(recordedBefore: time, of: scope)
    }

    public func removeRecords(through version: UInt64) throws(JournalError) {
        try openFile().removeRecords(through: version, of: scope)
    }

    /// The file's role (one for all its stores).
    @discardableResult
    public func claim(for role: JournalRole) throws(JournalError) -> Bool {
        try openFile().claim(for: role)
    }

    /// A replica's store: the incarnation of the log's store its snapshots belong to. Otherwise
    /// the file's shared log (one for all its stores).
    public func sharedLogIdentity() throws(JournalError) -> String? {
        try checkOpen()
        if let logIdentity { return logIdentity }
        return try database.sharedLogIdentity()
    }

    /// Records the file's shared log (one for all its stores); a replica's store has its
    /// incarnation recorded on its row already, and refuses another.
    public func recordSharedLogIdentity(_ identity: String) throws(JournalError) {
        try checkOpen()
        if let logIdentity {
            guard identity == logIdentity else {
                throw JournalError(code: .unusable, message: "the snapshots of store \(scope.id) in \(database.path) belong to its incarnation \(logIdentity), not \(identity)")
            }
            return
        }
        try database.recordSharedLogIdentity(identity)
    }

    /// Closes this view; the file stays open.
    public func close() {
        closed.store(true, ordering: .releasing)
    }

    fileprivate func checkOpen() throws(JournalError) {
        if isClosed {
            throw JournalError(code: .closed, message: "the journal of store \(scope.id) in \(database.path) is closed")
        }
    }

    /// The file, unless this view is closed (``Journal/JournalErrorCode/closed``).
    fileprivate func openFile() throws(JournalError) -> SQLiteJournalStorage {
        try checkOpen()
        return database
    }
}

extension SQLiteStoreJournal: JournalContents {
    /// The store's snapshots, oldest first, each checked against its checksum.
    public func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try openFile().storedSnapshots(of: scope)
    }
}
