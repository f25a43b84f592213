@testable import SQLiteJournal

/// The journal file's tables as the earlier formats made them, for the upgrade tests.
enum EarlierJournalFormat {
    /// Format 1's tables (before checksums), in the order it made them.
    private static let formatOneTables: KeyValuePairs<String, String> = [
        "meta": "key TEXT PRIMARY KEY, value TEXT NOT NULL",
        "actions": "version INTEGER PRIMARY KEY, type TEXT NOT NULL, payload BLOB NOT NULL, time INTEGER NOT NULL",
        "snapshots": "version INTEGER PRIMARY KEY, state BLOB NOT NULL, time INTEGER NOT NULL",
        "answers": "key TEXT PRIMARY KEY, fingerprint BLOB NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL, time INTEGER NOT NULL",
    ]

    /// Format 3's tables (many stores, every record in `actions`), as it made them.
    private static let formatThreeTables = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE stores(
            key INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, incarnation TEXT NOT NULL,
            created_at INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0, last_action_at INTEGER);
        CREATE TABLE actions(
            store INTEGER NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, payload BLOB NOT NULL,
            time INTEGER NOT NULL, checksum INTEGER NOT NULL, PRIMARY KEY(store, version)) WITHOUT ROWID;
        CREATE TABLE snapshots(
            store INTEGER NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL, time INTEGER NOT NULL,
            checksum INTEGER NOT NULL, PRIMARY KEY(store, version));
        CREATE TABLE answers(
            store INTEGER NOT NULL, key TEXT NOT NULL, fingerprint BLOB NOT NULL, status INTEGER NOT NULL,
            body BLOB NOT NULL, time INTEGER NOT NULL, PRIMARY KEY(store, key));
        CREATE INDEX answers_by_time ON answers(store, time);
        INSERT INTO meta VALUES ('format', '3'), ('role', 'single-node');
        """

    /// A new single-node journal file at `path` with the empty tables of `format` (1, 2 or 3), in
    /// WAL mode: format 2 added a checksum to every record and snapshot, and an index on the
    /// answers' time; format 3 keyed every table by store (without the default store's row).
    static func create(format: Int, at path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, create: true)
        if format == 3 {
            try database.execute("PRAGMA journal_mode=WAL;\n" + formatThreeTables)
            return database
        }
        var script = "PRAGMA journal_mode=WAL;\n"
        for (table, columns) in formatOneTables {
            let checksum = format >= 2 && (table == "actions" || table == "snapshots") ? ", checksum INTEGER NOT NULL" : ""
            script += "CREATE TABLE \(table)(\(columns)\(checksum));\n"
        }
        script += "INSERT INTO meta VALUES ('format', '\(format)'), ('role', 'single-node');\n"
        if format >= 2 {
            script += "CREATE INDEX answers_by_time ON answers(time);\n"
        }
        try database.execute(script)
        return database
    }
}
