import Journal
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SQLiteJournalStorage {
    /// The columns of an action row, in the order ``SQLiteStatement/journalRecord(verify:)`` reads.
    static let recordColumns = "version, type, payload, time, checksum"
    /// A store's records (`?1`, its key) after the version `after` (an SQL expression; nil: all),
    /// in version order: from `actions`, and with `log` from the log of recent records too, less
    /// the log's rows that a fold in pieces has already copied into `actions` when `folds` (format
    /// 5: ``movedByFoldInPieces``), so that each record is read once.
    static func recordsQuery(columns: String = recordColumns, log: Bool, folds: Bool = true, after: String? = nil) -> String {
        let condition = "store = ?1" + (after.map { " AND version > \($0)" } ?? "")
        var query = "SELECT \(columns) FROM actions WHERE \(condition)"
        if log {
            query += " UNION ALL SELECT \(columns) FROM commit_log WHERE \(condition)" + (folds ? " AND NOT \(movedByFoldInPieces)" : "")
        }
        return query + " ORDER BY version"
    }

    /// The columns of a snapshot row, in the order ``SQLiteStatement/journalSnapshot(verify:)`` reads.
    static let snapshotColumns = "version, state, time, checksum"

    /// The tables of format 3: every store's rows keyed by the store's `key` (never reused:
    /// `AUTOINCREMENT`, so a deleted store's rows and views never meet a later store of its id).
    /// Format 4 adds ``logTable``.
    static let format3Tables = """
        CREATE TABLE IF NOT EXISTS stores(
            key INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, incarnation TEXT NOT NULL,
            created_at INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0, last_action_at INTEGER);
        CREATE TABLE IF NOT EXISTS actions(
            store INTEGER NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, payload BLOB NOT NULL,
            time INTEGER NOT NULL, checksum INTEGER NOT NULL, PRIMARY KEY(store, version)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS snapshots(
            store INTEGER NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL, time INTEGER NOT NULL,
            checksum INTEGER NOT NULL, PRIMARY KEY(store, version));
        CREATE TABLE IF NOT EXISTS answers(
            store INTEGER NOT NULL, key TEXT NOT NULL, fingerprint BLOB NOT NULL, status INTEGER NOT NULL,
            body BLOB NOT NULL, time INTEGER NOT NULL, PRIMARY KEY(store, key));
        CREATE INDEX IF NOT EXISTS answers_by_time ON answers(store, time);
        """

    /// Format 4's log of recent records: every commit appends every store's records here in
    /// commit order (`seq`, the rowid: one to three pages per commit, whatever the stores), and
    /// ``foldLog(_:)`` moves them into `actions` in batches. No index: a read scans it, and it is
    /// kept short (``foldThreshold``).
    static let logTable = """
        CREATE TABLE IF NOT EXISTS commit_log(
            seq INTEGER PRIMARY KEY, store INTEGER NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL,
            payload BLOB NOT NULL, time INTEGER NOT NULL, checksum INTEGER NOT NULL);
        """

    /// Format 5's progress of a fold in pieces (``FoldInProgress``): at most one row, the log's
    /// last row the fold moves (`through`) and the last record it has copied into `actions`.
    static let foldProgressTable = """
        CREATE TABLE IF NOT EXISTS fold_progress(
            id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL, store INTEGER NOT NULL, version INTEGER NOT NULL);
        """

    /// Creates the tables of a new file, upgrades a file of format 1 or 2 to this format (one
    /// transaction per step), or refuses a newer one; makes sure the default store exists.
    static func createOrCheckSchema(_ database: SQLiteDatabase, path: String) throws -> Void {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT OR IGNORE INTO meta(key, value) VALUES ('format', '\(format)');
            """)
        let found = try storedFormat(database, path: path)
        guard found <= format else {
            throw JournalError(
                code: .newerFormat,
                message: "the journal \(path) has format \(found), newer than this server's \(format); run a newer remvvm-server, or move the data directory aside to start empty"
            )
        }
        if found == 1 {
            try upgradeFromFormat1(database)
        }
        if found <= 2 {
            try upgradeFromFormat2(database)
        }
        if found <= 3 {
            try upgradeFromFormat3(database)
        }
        if found <= 4 {
            try upgradeFromFormat4(database)
        }
        try database.execute(format3Tables + logTable + foldProgressTable)
        let insert = try database.prepare("INSERT OR IGNORE INTO stores(id, incarnation, created_at) VALUES (?1, ?2, ?3)")
        try insert.bind(1, StoreID.default.rawValue)
        try insert.bind(2, newIncarnation())
        try insert.bind(3, nowMilliseconds())
        try insert.run()
    }

    /// Moves a format-2 file's rows to the store `default` of format 3, in one transaction: a
    /// crash halfway leaves format 2, upgraded again at the next start. Checksums are carried as
    /// they are: the default store's checksum is format 2's (``Journal/JournalRecord/checksum(in:)``).
    private static func upgradeFromFormat2(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute("""
                ALTER TABLE actions RENAME TO actions_format2;
                ALTER TABLE snapshots RENAME TO snapshots_format2;
                ALTER TABLE answers RENAME TO answers_format2;
                DROP INDEX IF EXISTS answers_by_time;
                """)
            try database.execute(format3Tables)
            let insert = try database.prepare("""
                INSERT INTO stores(key, id, incarnation, created_at, version, last_action_at) VALUES (1, ?1, ?2, ?3,
                    MAX(COALESCE((SELECT MAX(version) FROM actions_format2), 0), COALESCE((SELECT MAX(version) FROM snapshots_format2), 0)),
                    (SELECT time FROM actions_format2 ORDER BY version DESC LIMIT 1))
                """)
            try insert.bind(1, StoreID.default.rawValue)
            try insert.bind(2, newIncarnation())
            try insert.bind(3, nowMilliseconds())
            try insert.run()
            try database.execute("""
                INSERT INTO actions(store, version, type, payload, time, checksum)
                    SELECT 1, version, type, payload, time, checksum FROM actions_format2;
                INSERT INTO snapshots(store, version, state, time, checksum)
                    SELECT 1, version, state, time, checksum FROM snapshots_format2;
                INSERT INTO answers(store, key, fingerprint, status, body, time)
                    SELECT 1, key, fingerprint, status, body, time FROM answers_format2;
                DROP TABLE actions_format2;
                DROP TABLE snapshots_format2;
                DROP TABLE answers_format2;
                UPDATE meta SET value = '3' WHERE key = 'format';
                """)
        }
    }

    /// Adds the log of recent records (``logTable``) and sets format 4, in one transaction: every
    /// record of a format-3 file stays in `actions`, where format 4 reads it too.
    private static func upgradeFromFormat3(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute(logTable)
            try database.execute("UPDATE meta SET value = '4' WHERE key = 'format'")
        }
    }

    /// Adds the progress of a fold in pieces (``foldProgressTable``) and sets format 5, in one
    /// transaction: a format-4 file's log holds no row that is also in `actions`. A server of
    /// format 4 refuses the file afterwards: it would read a fold's copied rows twice.
    private static func upgradeFromFormat4(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute(foldProgressTable)
            try database.execute("UPDATE meta SET value = '5' WHERE key = 'format'")
        }
    }

    /// A new store's incarnation: 16 random hex digits.
    static func newIncarnation() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Milliseconds since 1970.
    static func nowMilliseconds() -> Int64 {
        MemoryStoreCatalog.now()
    }

    /// The format recorded in `meta`; throws when there is none.
    static func storedFormat(_ database: SQLiteDatabase, path: String) throws -> Int {
        let select = try database.prepare("SELECT value FROM meta WHERE key = 'format'")
        guard try select.step(), let found = Int(select.text(0)) else {
            throw JournalError(code: .corrupt, message: "the journal \(path) has no readable format entry; it was not written by remvvm-server")
        }
        return found
    }

    /// Adds the checksum columns and fills them from the rows as they are, in one transaction (to
    /// format 2, then upgraded to 3): a crash halfway leaves format 1 untouched, upgraded again at
    /// the next start. What was damaged
    /// before the upgrade gets a checksum of its damage (`docs/journal.md`, "Checksums").
    private static func upgradeFromFormat1(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute("""
                ALTER TABLE actions ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE snapshots ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
                """)
            try fillChecksums(database, table: "actions", columns: recordColumns) { row throws(SQLiteError) in
                let record = try row.journalRecord(verify: false)
                return (record.version, record.checksum)
            }
            try fillChecksums(database, table: "snapshots", columns: snapshotColumns) { row throws(SQLiteError) in
                let snapshot = try row.journalSnapshot(verify: false)
                return (snapshot.version, snapshot.checksum)
            }
            try database.execute("UPDATE meta SET value = '2' WHERE key = 'format'")
        }
    }

    /// Sets the `checksum` column of every row of `table` (a format 1 table of one store, keyed by
    /// `version`) to what `row` computes from the row's `columns`.
    private static func fillChecksums(
        _ database: SQLiteDatabase,
        table: String,
        columns: String,
        row: (SQLiteStatement) throws(SQLiteError) -> (version: UInt64, checksum: UInt32)
    ) throws(SQLiteError) {
        let rows = try database.prepare("SELECT \(columns) FROM \(table) ORDER BY version")
        let update = try database.prepare("UPDATE \(table) SET checksum = ?2 WHERE version = ?1")
        while try rows.step() {
            let (version, checksum) = try row(rows)
            update.reset()
            try update.bind(1, Int64(version))
            try update.bind(2, Int64(checksum))
            try update.run()
        }
    }

    /// Every snapshot of `store` in `database`, newest first, each checked against its checksum.
    static func snapshots(of store: StoreScope, in database: SQLiteDatabase) throws(SQLiteError) -> [JournalSnapshot] {
        let select = try database.prepare("SELECT \(snapshotColumns) FROM snapshots WHERE store = ?1 ORDER BY version DESC")
        try select.bind(1, store.key)
        var snapshots: [JournalSnapshot] = []
        while try select.step() {
            snapshots.append(try select.journalSnapshot(verify: true, in: store.id))
        }
        return snapshots
    }

    /// `3, 5, 8` (at most ten, then how many more).
    static func list(_ versions: [UInt64]) -> String {
        let shown = versions.prefix(10).map(String.init).joined(separator: ", ")
        return versions.count > 10 ? shown + " and \(versions.count - 10) more" : shown
    }
}

extension SQLiteStatement {
    /// The current row as a record of `store` (columns ``SQLiteJournalStorage/recordColumns``);
    /// with `verify`, marked not intact unless the stored checksum matches.
    func journalRecord(verify: Bool, in store: StoreID = .default) throws(SQLiteError) -> JournalRecord {
        var record = JournalRecord(version: try version(0), type: text(1), payload: blob(2), time: int64(3))
        if verify {
            record.isIntact = optionalInt64(4) == Int64(record.checksum(in: store))
        }
        return record
    }

    /// The current row as a snapshot of `store` (columns ``SQLiteJournalStorage/snapshotColumns``);
    /// with `verify`, marked not intact unless the stored checksum matches.
    func journalSnapshot(verify: Bool, in store: StoreID = .default) throws(SQLiteError) -> JournalSnapshot {
        var snapshot = JournalSnapshot(version: try version(0), state: blob(1), time: int64(2))
        if verify {
            snapshot.isIntact = optionalInt64(3) == Int64(snapshot.checksum(in: store))
        }
        return snapshot
    }
}
