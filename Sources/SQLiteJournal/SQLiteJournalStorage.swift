import ConcurrencyKit
public import Journal
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The journal of every store of a server in one SQLite file (`journal.sqlite`, WAL mode) inside
/// a data directory that one server process holds (a `flock` on `journal.lock`).
///
/// Tables (format 5): `meta` (the format, and the ``JournalRole`` that uses the file), `stores`
/// (each store's id, incarnation, creation time, and its head version and last action's time as of
/// the last time records were removed: the head is derived from the newest record), `commit_log`
/// (the recent records of every store in commit order, where commits append them), `actions` (one
/// row per store and version, where the log is folded in batches: ``foldLog(_:)``, in pieces:
/// ``FoldInProgress``, whose progress `fold_progress` holds), `snapshots` (the
/// newest two usable ones of each store), `answers` (answers kept for idempotency keys, per store, written in
/// the same transaction as their actions). Each action and snapshot row carries the CRC-32C of what
/// it means (``Journal/JournalRecord/checksum(in:)``), checked whenever it is read; files of
/// formats 1 to 3 are upgraded when opened (`docs/journal.md`, "Checksums", "Many stores" and
/// "The log of recent records").
/// A commit is one SQLite transaction, so a crash mid-commit leaves the previous commit whole:
/// SQLite rolls the torn transaction back when the file is next opened.
///
/// It is the ``Journal/StoreCatalog`` of its stores and hands out a ``Journal/JournalStorage`` per
/// store (``storage(for:)``); as a ``Journal/JournalStorage`` itself it is the store `default`,
/// whose ``close()`` closes the whole file. ``commits`` writes the batches of every store's
/// ``Journal/GroupCommitJournal`` in one transaction (``Journal/JournalTransactions``).
public final class SQLiteJournalStorage: JournalStorage {
    /// The format this code writes; a file with a higher one is refused.
    public static let format = 5
    /// The journal file's name inside the data directory.
    public static let fileName = "journal.sqlite"
    /// The lock file's name inside the data directory.
    public static let lockFileName = "journal.lock"

    struct Writer {
        let database: SQLiteDatabase
        let insertAction: SQLiteStatement
        let foldHead: SQLiteStatement
        let foldLoggedHead: SQLiteStatement
        let removeLogged: SQLiteStatement
        let selectNewestAction: SQLiteStatement
        let storeRow: StoreRowStatements
        let insertStore: SQLiteStatement
        let insertSnapshot: SQLiteStatement
        let pruneSnapshots: SQLiteStatement
        let selectUsableSnapshots: SQLiteStatement
        let removeActions: SQLiteStatement
        let insertAnswer: SQLiteStatement
        let removeAnswers: SQLiteStatement
    }

    struct Reader {
        let database: SQLiteDatabase
        let selectActions: SQLiteStatement
        let selectActionsAndLog: SQLiteStatement
        let selectSnapshot: SQLiteStatement
        let selectAnswer: SQLiteStatement
        let storeRow: StoreRowStatements
    }

    /// The data directory's path.
    public let directory: String
    /// The journal file's path.
    public let path: String
    /// Where messages say the journal is: ``path``.
    public var location: String { path }

    private let lockDescriptor: Int32
    /// The data directory itself, locked too: deleting `journal.lock` (an operator tidying up a
    /// lock file that looks stale) let a second server start on the same journal.
    private let directoryLockDescriptor: Int32
    /// The directory was used before (it held `journal.lock`) but the journal file was missing or
    /// empty: a new journal is started (``Journal/JournalRecovery/journalWasMissing``).
    let foundJournalMissing: Bool
    /// A write-ahead log was left behind: the last server to use the journal did not close it.
    let foundUncleanStop: Bool
    /// The store `default` (its key in the file).
    let defaultStore: StoreScope
    /// How commits are synced (`journalSync`).
    let sync: JournalSync
    /// Snapshots written without a sync of their own (``saveSnapshot(_:of:synced:)``): for tests.
    let snapshotsWithoutOwnSync = Lock<UInt64>(0)
    private let commitPolicy: CommitPolicy
    private let commitClock: any JournalClock
    /// How many stores the file holds, once counted (changed only under the writer's lock, by
    /// ``create(_:limit:at:)`` and ``delete(_:)``): a creation does not count 100,000 rows.
    let storeCount = Lock<Int?>(nil)
    /// The keys of the stores deleted since the file was opened (added once the deletion has
    /// committed, under the writer's lock): a commit refuses a store's records by this set instead
    /// of looking up the store's row (2,000–2,600 instructions a store of a commit). Complete,
    /// since only this instance writes the file (its lock) and a key is never given again
    /// (`AUTOINCREMENT`).
    let deletedStoreKeys = Lock<Set<Int64>>([])
    /// Records in the log (`commit_log`) that start a fold into `actions` (``foldLog(_:)``).
    public let foldThreshold: Int
    /// Records a piece of a fold moves before a commit (``FoldInProgress``).
    public let foldPiece: Int
    /// The stores with records in the log from which a fold moves in pieces; below, it moves
    /// whole (``FoldInProgress``).
    let foldPiecesFromStores: Int
    /// Whether opening the file found a fold in pieces that a stop had cut short, and finished it
    /// (the server logs it; the crash test counts it).
    public let finishedAnInterruptedFold: Bool
    /// The log's size and the stores with records in it (``LogState``).
    let log: Lock<LogState>
    /// Whether ``close()`` folds the log into `actions` (tests turn it off to leave records in the
    /// log of a closed file).
    let foldsLogOnClose = Lock(true)
    /// ``commits``, made on first use (it refers back to the file).
    private let committer = Lock<JournalCommitter?>(nil)

    // SQLite connections are not thread-safe: each lives in a lock (nil once closed).
    private let writer: Lock<Writer?>
    private let reader: Lock<Reader?>
    /// Checkpoints off the journal thread; nil when its thread could not start.
    let checkpointer: WALCheckpointer?
    /// Commits and records since the last checkpoint request.
    let sinceCheckpoint = Lock((commits: 0, records: 0))

    /// A checkpoint is asked for after this many commits or records, whichever comes first.
    static let checkpointEveryCommits = 256
    static let checkpointEveryRecords = 4_096

    /// Opens the journal in `directory` (which must exist), creating the file if needed; throws if
    /// another process holds it, if it cannot be used, or if a newer server wrote it. `policy`
    /// and `clock` are those of the shared group commit (``commits``); `foldThreshold`, how many
    /// records the log of recent records holds before they move into `actions`, `foldPiece` how
    /// many move before each commit when the log holds records of `foldPiecesFromStores` stores
    /// or more (tests use a few).
    public init(
        directory: String, sync: JournalSync, policy: CommitPolicy = CommitPolicy(), clock: any JournalClock = SystemJournalClock(),
        foldThreshold: Int = SQLiteJournalStorage.defaultFoldThreshold, foldPiece: Int = SQLiteJournalStorage.defaultFoldPiece,
        foldPiecesFromStores: Int = SQLiteJournalStorage.defaultFoldPiecesFromStores
    ) throws(JournalError) {
        self.foldThreshold = max(1, foldThreshold)
        self.foldPiece = max(1, foldPiece)
        self.foldPiecesFromStores = max(1, foldPiecesFromStores)
        log = Lock(LogState(nextFold: max(1, foldThreshold)))
        commitPolicy = policy
        commitClock = clock
        self.sync = sync
        self.directory = directory
        path = directory + "/" + Self.fileName
        let usedBefore = access(directory + "/" + Self.lockFileName, F_OK) == 0
        (lockDescriptor, directoryLockDescriptor) = try Self.lockDirectory(directory)
        // Closing the last connection checkpoints the write-ahead log into the file and deletes
        // it; one that is still there (with the directory's lock free) was left by a crash.
        var walStatus = stat()
        foundUncleanStop = stat(path + "-wal", &walStatus) == 0 && walStatus.st_size > 0
        var fileStatus = stat()
        let fileMissing = stat(path, &fileStatus) != 0 && errno == ENOENT
        let fileMissingOrEmpty = fileMissing || fileStatus.st_size == 0
        if foundUncleanStop, fileMissingOrEmpty {
            // SQLite would start the file anew (an empty one counts as a new database) and drop
            // the log's frames, whose pages belong to the lost one: the server would start at
            // version 0 over acknowledged actions, and delete the log that still held them.
            Self.unlock(lockDescriptor, directoryLockDescriptor)
            throw JournalError(
                code: .corrupt,
                message: "the journal \(path) is \(fileMissing ? "missing" : "empty") but its write-ahead log \(path)-wal is there (\(walStatus.st_size) bytes of commits not yet copied into it): restore \(Self.fileName) from a backup, or move the data directory aside to start empty"
            )
        }
        foundJournalMissing = usedBefore && fileMissingOrEmpty
        // Only with `full`: with `normal` or `off` the log is not synced per commit, and a power
        // loss may leave any mix of its blocks, which that mode accepts.
        if foundUncleanStop, sync == .full, let check = WriteAheadLogCheck.check(path: path + "-wal"), check.transactionsLostAfterDamage > 0 {
            // SQLite would replay up to the damage and drop what follows: complete transactions,
            // acknowledged commits among them unless the damage is the torn end of an unsynced
            // one. Checked before SQLite opens the file (a clean stop would delete the log).
            Self.unlock(lockDescriptor, directoryLockDescriptor)
            throw JournalError(
                code: .corrupt,
                message: "the write-ahead log \(path)-wal is damaged at byte \(check.damageOffset ?? 0), and \(check.transactionsLostAfterDamage) complete transaction(s) follow the damage: SQLite would drop them and start from the ones before it. If the damaged transaction was a synced commit, they may hold acknowledged actions; if it was written without a sync of its own (a fold of the log into actions, or a snapshot of a store other than default) and a power loss cut it short, no sync completed after it and they were never synced nor acknowledged. The log does not tell which. Restore the data directory from a backup; or keep a copy of it and move \(Self.fileName)-wal aside to start from the journal's last checkpoint (losing every commit in the log)"
            )
        }
        do {
            let database = try SQLiteDatabase(path: path, create: true)
            try database.execute("PRAGMA journal_mode=WAL")
            try database.execute("PRAGMA synchronous=\(Self.pragma(for: sync))")
            try database.execute("PRAGMA busy_timeout=0")
            // Checkpoints run on the checkpointer's thread, not inside a commit.
            try database.execute("PRAGMA wal_autocheckpoint=0")
            // When the log starts over after a checkpoint, its file is cut back to 4 MiB: a burst
            // that outran the checkpointer does not keep its disk space.
            try database.execute("PRAGMA journal_size_limit=4194304")
            try Self.createOrCheckSchema(database, path: path)
            let writer = Writer(
                database: database,
                insertAction: try database.prepare("INSERT INTO commit_log(store, version, type, payload, time, checksum) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
                foldHead: try database.prepare("""
                    UPDATE stores SET version = newest.version, last_action_at = newest.time
                        FROM (SELECT version, time FROM actions WHERE store = ?1 ORDER BY version DESC LIMIT 1) AS newest
                        WHERE stores.key = ?1 AND newest.version > stores.version
                    """),
                foldLoggedHead: try database.prepare("UPDATE stores SET version = ?2, last_action_at = ?3 WHERE key = ?1 AND version < ?2"),
                removeLogged: try database.prepare("DELETE FROM commit_log WHERE store = ?1 AND version <= ?2"),
                selectNewestAction: try database.prepare("SELECT MAX(version) FROM actions WHERE store = ?1"),
                storeRow: try StoreRowStatements(database),
                insertStore: try database.prepare("INSERT INTO stores(id, incarnation, created_at) VALUES (?1, ?2, ?3)"),
                insertSnapshot: try database.prepare("INSERT OR REPLACE INTO snapshots(store, version, state, time, checksum) VALUES (?1, ?2, ?3, ?4, ?5)"),
                pruneSnapshots: try database.prepare("DELETE FROM snapshots WHERE store = ?1 AND NOT (typeof(version) = 'integer' AND version IN (?2, ?3))"),
                selectUsableSnapshots: try database.prepare(Self.usableSnapshotsQuery),
                removeActions: try database.prepare("DELETE FROM actions WHERE store = ?1 AND version <= ?2"),
                insertAnswer: try database.prepare("INSERT OR REPLACE INTO answers(store, key, fingerprint, status, body, time) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
                removeAnswers: try database.prepare("DELETE FROM answers WHERE store = ?1 AND time < ?2")
            )
            let selectDefault = try database.prepare("SELECT key FROM stores WHERE id = ?1")
            try selectDefault.bind(1, StoreID.default.rawValue)
            guard try selectDefault.step() else {
                throw SQLiteError.damaged("the store default has no row in the table stores")
            }
            defaultStore = StoreScope(id: .default, key: selectDefault.int64(0))
            finishedAnInterruptedFold = try Self.finishInterruptedFold(in: database)
            let found = Self.logState(of: database, foldThreshold: self.foldThreshold)
            log.withLock { $0 = found }
            self.writer = Lock(writer)
            let readDatabase = try SQLiteDatabase(path: path, create: false, readOnly: true)
            reader = Lock(Reader(
                database: readDatabase,
                selectActions: try readDatabase.prepare("SELECT \(Self.recordColumns) FROM actions WHERE store = ?1 AND version > ?2 ORDER BY version LIMIT ?3"),
                selectActionsAndLog: try readDatabase.prepare("\(Self.recordsQuery(log: true, after: "?2")) LIMIT ?3"),
                selectSnapshot: try readDatabase.prepare("SELECT \(Self.snapshotColumns) FROM snapshots WHERE store = ?1 AND version <= ?2 ORDER BY version DESC"),
                selectAnswer: try readDatabase.prepare("SELECT key, fingerprint, status, body, time FROM answers WHERE store = ?1 AND key = ?2"),
                storeRow: try StoreRowStatements(readDatabase)
            ))
            let checkpointer = try WALCheckpointer(path: path)
            self.checkpointer = checkpointer.start() ? checkpointer : nil
        } catch let error as SQLiteError {
            Self.unlock(lockDescriptor, directoryLockDescriptor)
            let advice = error.isWriteFailure ? "; check that the disk has free space and that this user may write to \(directory)" : ""
            throw JournalError(code: error.isBusy ? .locked : .unusable, message: "cannot open the journal \(path): \(error)\(advice)")
        } catch let error as JournalError {
            Self.unlock(lockDescriptor, directoryLockDescriptor)
            throw error
        } catch {
            Self.unlock(lockDescriptor, directoryLockDescriptor)
            throw JournalError(code: .unusable, message: "cannot open the journal \(path): \(error)")
        }
    }

    deinit {
        close()
    }

    /// Records `role` in `meta` (key `role`) the first time; refuses a file another role used.
    /// Files of builds before the entry get it at their next start.
    @discardableResult
    public func claim(for role: JournalRole) throws(JournalError) -> Bool {
        let (recorded, ambiguous) = try withWriter { writer throws(SQLiteError) -> (String?, Bool) in
            let select = try writer.database.prepare("SELECT value FROM meta WHERE key = 'role'")
            if try select.step() { return (select.text(0), false) }
            let contents = try writer.database.prepare(
                "SELECT EXISTS(SELECT 1 FROM snapshots), EXISTS(SELECT 1 FROM actions) OR EXISTS(SELECT 1 FROM commit_log)"
            )
            _ = try contents.step()
            let snapshotsOnly = contents.int64(0) != 0 && contents.int64(1) == 0
            try writer.database.execute("INSERT INTO meta(key, value) VALUES ('role', '\(role.rawValue)')")
            return (nil, snapshotsOnly)
        } describing: { "cannot record the data directory's use in \(path): \($0)" }
        guard let recorded, recorded != role.rawValue else { return ambiguous }
        switch JournalRole(rawValue: recorded) {
        case .replica:
            throw JournalError(
                code: .unusable,
                message: "the data directory \(directory) belongs to a replica of a shared PostgreSQL log (\(path) holds snapshots of that log): a server on its own started there would fork from the log. Start it as a replica (journal postgres, the log's postgresURL), or give this server another data directory"
            )
        case .singleNode:
            throw JournalError(
                code: .unusable,
                message: "the data directory \(directory) holds the journal of a server on its own (\(path)), not snapshots of a shared log: a replica must not start from it. Give the replica another data directory (an empty one, or a copy of another replica's), or start the server on its own (journal sqlite)"
            )
        case nil:
            throw JournalError(
                code: .unusable,
                message: "the data directory \(directory) was used as \"\(recorded)\" by another build (\(path)); this one knows only single-node and replica: run that build, or use another data directory"
            )
        }
    }

    /// `meta` key `log`.
    public func sharedLogIdentity() throws(JournalError) -> String? {
        try withWriter { writer throws(SQLiteError) -> String? in
            let select = try writer.database.prepare("SELECT value FROM meta WHERE key = 'log'")
            return try select.step() ? select.text(0) : nil
        } describing: { "cannot read which shared log \(path) belongs to: \($0)" }
    }

    public func recordSharedLogIdentity(_ identity: String) throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            let insert = try writer.database.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('log', ?1)")
            try insert.bind(1, identity)
            try insert.run()
        } describing: { "cannot record which shared log \(path) belongs to: \($0)" }
    }

    /// Copies the frames committed while the background checkpoint ran, so that the transaction
    /// that follows starts the log over. Only a few frames: one commit pays for copying them and
    /// one fsync of the database file, and each of the next hundreds of commits saves about 170 µs
    /// (`docs/benchmarks.md`). A failure here is left to the commit that follows, which meets it
    /// again if it is real.
    func finishCheckpoint(_ database: SQLiteDatabase, _ checkpointer: WALCheckpointer) {
        do throws(SQLiteError) {
            try database.checkpointPassive()
        } catch where error.isBusy {
            checkpointer.catchUpAgain()
        } catch {
            return
        }
    }

    /// Calls `handler` with SQLite's error when the background checkpoints start failing (the
    /// database file cannot be written or synced: the write-ahead log then grows and every
    /// commit waits behind it), and with nil once one succeeds again; for the server's log.
    public func onCheckpointProblem(_ handler: @escaping @Sendable (String?) -> Void) {
        checkpointer?.onProblem(handler)
    }

    /// Checkpoints completed in the background so far (for tests).
    var checkpointsCompleted: UInt64 {
        checkpointer?.completed ?? 0
    }

    /// Runs a background checkpoint now and waits for it (for tests).
    func checkpointNow(timeout: Duration) -> Bool {
        checkpointer?.checkpointNow(timeout: timeout) ?? false
    }

    /// Runs `body` with the reader connection, turning SQLite errors into journal errors
    /// (``Journal/JournalErrorCode/corrupt``, described by `describe`).
    func withReader<Result>(
        describing describe: ((SQLiteError) -> String)? = nil,
        _ body: (Reader) throws(SQLiteError) -> Result
    ) throws(JournalError) -> Result {
        switch Self.outcome(with: reader, body) {
        case .none: throw JournalError(code: .closed, message: "the journal \(path) is closed")
        case .success(let value): return value
        case .failure(let error): throw JournalError(code: .corrupt, message: describe?(error) ?? "cannot read the journal \(path): \(error)")
        }
    }

    /// The group commit shared by every store's ``Journal/GroupCommitJournal`` over this file:
    /// one thread, one transaction (one sync) for the batches of many stores. Started by the
    /// first journal that starts; stopped by ``close()``.
    public var commits: JournalCommitter {
        committer.withLock { committer in
            if let committer { return committer }
            let made = JournalCommitter(transactions: SQLiteStoreTransactions(database: self), policy: commitPolicy, clock: commitClock)
            committer = made
            return made
        }
    }

    /// Stops the shared group commit (each journal still registered commits what it can first),
    /// then closes the file: every view of it throws ``Journal/JournalErrorCode/closed`` from then on.
    public func close() {
        committer.withLock { $0 }?.stop()
        // The checkpointer's and the reader's connections first: the writer, closing last,
        // checkpoints what is left and deletes the write-ahead log (a read-only connection
        // closing last cannot, and would leave it behind as if the server had crashed).
        checkpointer?.stop()
        // At rest the records are in `actions`, the log empty (a crash leaves it as it was). A
        // failure leaves them in the log, where the next start reads them.
        if foldsLogOnClose.withLock({ $0 }), log.withLock({ $0.rows > 0 }) {
            try? foldLog()
        }
        reader.withLock { $0 = nil }
        let wasOpen = writer.withLock { writer in
            defer { writer = nil }
            return writer != nil
        }
        if wasOpen {
            // Closing the descriptors releases the flocks.
            Self.unlock(lockDescriptor, directoryLockDescriptor)
        }
    }

    /// Runs `body` with the reader's statement at `statement`, reset before (the bindings of its
    /// last use) and after (a statement left stepping would hold its read transaction open).
    func read<Result>(
        _ statement: KeyPath<Reader, SQLiteStatement>,
        _ body: (SQLiteStatement) throws(SQLiteError) -> Result
    ) throws(JournalError) -> Result {
        try withReader { reader throws(SQLiteError) -> Result in
            let select = reader[keyPath: statement]
            select.reset()
            defer { select.reset() }
            return try body(select)
        }
    }

    /// `body`'s result with the connection `slot` holds, under its lock, or its SQLite error;
    /// nil when the journal is closed (the slot is empty).
    private static func outcome<Connection, Value>(
        with slot: Lock<Connection?>,
        _ body: (Connection) throws(SQLiteError) -> Value
    ) -> Swift.Result<Value, SQLiteError>? {
        slot.withLock { connection -> Swift.Result<Value, SQLiteError>? in
            guard let connection else { return nil }
            do throws(SQLiteError) {
                return .success(try body(connection))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Runs `body` with the writer connection, turning SQLite errors into journal errors.
    func withWriter<Result>(
        _ body: (Writer) throws(SQLiteError) -> Result,
        describing describe: (SQLiteError) -> String
    ) throws(JournalError) -> Result {
        switch Self.outcome(with: writer, body) {
        case .none:
            throw JournalError(code: .closed, message: "the journal \(path) is closed")
        case .success(let value):
            return value
        case .failure(let error):
            let code: JournalError.Code = error.code == SQLiteError.damagedCode ? .corrupt : (error.isWriteFailure ? .writeFailed : .corrupt)
            throw JournalError(code: code, message: describe(error))
        }
    }

    static func pragma(for sync: JournalSync) -> String {
        switch sync {
        case .full: "FULL"
        case .normal: "NORMAL"
        case .off: "OFF"
        }
    }

    /// Takes the data directory's locks — its lock file, and the directory itself — or throws if
    /// another process holds either. Returns both descriptors (the directory's is -1 where the
    /// file system cannot open a directory for it).
    private static func lockDirectory(_ directory: String) throws(JournalError) -> (file: Int32, directory: Int32) {
        let lockPath = directory + "/" + lockFileName
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw JournalError(code: .unusable, message: "cannot use the data directory \(directory): \(lockPath): \(reason); check that it exists and this user may write to it")
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for (held, name) in [(descriptor, lockPath), (directoryDescriptor, directory)] where held >= 0 {
            guard flock(held, LOCK_EX | LOCK_NB) != 0 else { continue }
            let busy = errno == EWOULDBLOCK
            // A file system that cannot lock a directory (NFS emulates flock with fcntl locks,
            // which need a descriptor open for writing): the lock file alone holds it.
            if held == directoryDescriptor, !busy { continue }
            let reason = String(cString: strerror(errno))
            unlock(descriptor, directoryDescriptor)
            throw JournalError(
                code: busy ? .locked : .unusable,
                message: busy
                    ? "the data directory \(directory) is in use by another server process (\(name) is locked); stop it or use another directory"
                    : "cannot lock \(name): \(reason)"
            )
        }
        return (descriptor, directoryDescriptor)
    }

    /// Releases the locks (closing a descriptor releases its flock).
    private static func unlock(_ file: Int32, _ directory: Int32) {
        Glibc.close(file)
        if directory >= 0 { Glibc.close(directory) }
    }
}
