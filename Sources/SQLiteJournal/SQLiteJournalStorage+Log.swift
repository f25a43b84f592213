import Journal

/// What the writer knows of the log of recent records (`commit_log`, format 4): how many rows it
/// holds and which stores have rows in it. Changed only under the writer's lock.
struct LogState {
    /// Rows appended since the last fold (an upper bound: retention and deletion remove some).
    var rows = 0
    /// The keys of the stores that may have rows in the log: a superset (a key is added before the
    /// transaction that writes its rows commits, and removed only after a fold committed), so a
    /// reader that checks it before its read transaction begins and finds a store absent knows
    /// that every record of the store committed before the check is in `actions`.
    var stores: Set<Int64> = []
    /// The newest version written to the log, per store with records in it: what a commit's
    /// first version must follow (`actions` has a primary key that refuses a version twice; the
    /// log has none, and keeps none: an index keyed by store would be dirtied per store again).
    /// Its version and time: the store's head (``SQLiteJournalStorage/foldHead(of:_:)``).
    var newest: [Int64: (version: UInt64, time: Int64)] = [:]
    /// The oldest version in the log, per store with records in it: retention looks in the log
    /// only when it removes that far.
    var oldest: [Int64: UInt64] = [:]
    /// The log could not be read when the file was opened (a page SQLite cannot read): every
    /// read looks in it, and meets the damage there.
    var unreadable = false
    /// The log's size at which the next fold runs (``SQLiteJournalStorage/foldThreshold``, moved
    /// further by a fold that failed, so that a failing fold is not retried before every commit).
    var nextFold: Int
    /// The fold in pieces under way (``FoldInProgress``); nil between folds.
    var folding: FoldInProgress?
}

/// The log of recent records (format 4): why it exists, and the fold that empties it into
/// `actions`.
///
/// `actions` is keyed by (store, version), so a commit that carries the records of 64 stores
/// dirties 64 leaf pages of it, each written to the write-ahead log, synced, and copied back by
/// the checkpoint (`docs/journal.md`, "The log of recent records"). A commit therefore appends to
/// `commit_log` in commit order (rowid), one to three pages whatever the stores, and every
/// ``foldThreshold`` records the writer moves the log into `actions`: sorted by store and
/// version, a store's records of many commits then share its leaf page. Since format 5, over
/// ``foldPiecesFromStores`` stores or more, it moves them in pieces of about ``foldPiece``
/// records, one before every other commit (``FoldInProgress``), so that no commit waits for a
/// whole fold.
extension SQLiteJournalStorage {
    /// The default of ``foldThreshold``: records in the log that start a fold. The more records a
    /// fold moves, the more of each store's share one leaf page (`journal-bench stores`, 1,000
    /// stores: 38,000 acknowledged/s at 2,048, 55,000 at 8,192, 74,000 at 32,768). A read of a
    /// store with records in the log scans it (no index: an index keyed by store would be dirtied
    /// per store again), about 40 ns a row here, so 1.3 ms at this size; a store without records
    /// in it does not scan it (``LogState/stores``). `docs/benchmarks.md`, "2026-11-29".
    public static let defaultFoldThreshold = 32_768
    /// The values a server's settings allow for ``foldThreshold`` and ``foldPiece``.
    public static let allowedFoldRecords = 1...1_048_576

    /// Moves every record of the log into `actions`, in one transaction: a crash leaves each
    /// record in exactly one of the two tables, since SQLite replays a transaction whole or not at
    /// all.
    ///
    /// The transaction is not synced on its own (with `journalSync` full it runs at
    /// `synchronous=NORMAL`): it only moves records that are already durable. In WAL mode the
    /// log keeps transactions in order and the next commit's sync covers every frame before its
    /// own, and a checkpoint syncs the log before it copies a frame into the file; a power loss
    /// before either loses the fold whole, and the records are then still in `commit_log`.
    func foldLog(_ writer: Writer) throws(SQLiteError) {
        try withRelaxedSync(writer) { () throws(SQLiteError) in
            try writer.database.transaction { () throws(SQLiteError) in
                try Self.foldLog(in: writer.database)
            }
        }
        log.withLock { $0 = LogState(nextFold: foldThreshold) }
    }

    /// The fold's statements, inside the caller's transaction (a repair's runs there too, and a
    /// start's that finds a fold in pieces cut short): first the rows that pieces of a fold under
    /// way already copied into `actions` (``FoldInProgress``, recorded in `fold_progress`), then
    /// every other record.
    static func foldLog(in database: SQLiteDatabase) throws(SQLiteError) {
        try database.execute("""
            DELETE FROM commit_log WHERE \(movedByFoldInPieces);
            INSERT OR FAIL INTO actions(store, version, type, payload, time, checksum)
                SELECT store, version, type, payload, time, checksum FROM commit_log ORDER BY store, version;
            DELETE FROM commit_log;
            DELETE FROM fold_progress;
            """)
    }

    /// Moves the log into `actions` now (a clean close, `repair`, tests).
    func foldLog() throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            try foldLog(writer)
        } describing: { "moving the recent records of \(path) into the table actions failed: \($0)" }
    }

    /// Rows in the log now (for tests).
    func logRowCount() throws(JournalError) -> Int {
        try withReader { reader throws(SQLiteError) -> Int in
            let count = try reader.database.prepare("SELECT COUNT(*) FROM commit_log")
            _ = try count.step()
            return Int(count.int64(0))
        }
    }

    /// Whether a read of `scope`'s records must look in the log too: checked before the read's
    /// transaction begins (``LogState/stores``).
    func mayHaveLoggedRecords(_ scope: StoreScope) -> Bool {
        log.withLock { $0.unreadable || $0.stores.contains(scope.key) }
    }

    /// What the writer finds in the log of a file it opens: the rows a crash left there. A log
    /// SQLite cannot read is not refused here: the reads that need it are (``LogState/unreadable``),
    /// as they are for a damaged page of `actions`, naming the store.
    static func logState(of database: SQLiteDatabase, foldThreshold: Int) -> LogState {
        var state = LogState(nextFold: foldThreshold)
        do throws(SQLiteError) {
            let stores = try database.prepare("SELECT store, COUNT(*), MIN(version) FROM commit_log GROUP BY store")
            while try stores.step() {
                state.stores.insert(stores.int64(0))
                state.rows += Int(stores.int64(1))
                state.oldest[stores.int64(0)] = UInt64(clamping: stores.int64(2))
            }
            // One aggregate: `time` is then the newest record's (SQLite's bare column of `MAX`).
            let heads = try database.prepare(SQLiteJournalStorage.loggedHeads(""))
            while try heads.step() {
                state.newest[heads.int64(0)] = (UInt64(clamping: heads.int64(1)), heads.int64(2))
            }
        } catch {
            state = LogState(unreadable: true, nextFold: foldThreshold)
        }
        return state
    }

    /// Refuses `records` of `scope` unless their versions increase and the first follows the
    /// store's newest stored version (`newest`, from ``LogState/newest``; nil: looked up in
    /// `actions`): what `actions`' primary key refused before the log (a version written twice,
    /// by two views of one store, would otherwise be found only at the next start).
    static func checkVersions(_ records: [JournalRecord], of scope: StoreScope, newest: UInt64?, _ writer: Writer) throws(SQLiteError) {
        guard let first = records.first else { return }
        var previous: UInt64? = newest
        if previous == nil {
            let select = writer.selectNewestAction
            select.reset()
            defer { select.reset() }
            try select.bind(1, scope.key)
            if try select.step(), !select.isNull(0) { previous = UInt64(clamping: select.int64(0)) }
        }
        for record in records {
            if let previous, record.version <= previous {
                throw SQLiteError.refused(
                    "version \(record.version) of store \(scope.id) does not follow version \(previous) (records \(first.version)...\(records.last?.version ?? first.version)): a version is written once, in order"
                )
            }
            previous = record.version
        }
    }

    /// Runs `body` on the writer at `synchronous=NORMAL` when commits run at `FULL`: a
    /// transaction that nothing relies on being durable before the next synced commit.
    func withRelaxedSync(_ writer: Writer, _ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        guard sync == .full else { return try body() }
        try writer.database.execute("PRAGMA synchronous=NORMAL")
        do throws(SQLiteError) {
            try body()
        } catch {
            try? writer.database.execute("PRAGMA synchronous=\(Self.pragma(for: sync))")
            throw error
        }
        try writer.database.execute("PRAGMA synchronous=\(Self.pragma(for: sync))")
    }
}
