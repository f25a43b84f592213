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

    /// A new single-node journal file at `path` with the empty tables of `format` (1 or 2), in WAL
    /// mode: format 2 added a checksum to every record and snapshot, and an index on the answers'
    /// time.
    static func create(format: Int, at path: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, create: true)
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
