import Journal

extension SQLiteJournalStorage {
    /// The columns of an action row, in the order ``SQLiteStatement/journalRecord(verify:)`` reads.
    static let recordColumns = "version, type, payload, time, checksum"
    /// The columns of a snapshot row, in the order ``SQLiteStatement/journalSnapshot(verify:)`` reads.
    static let snapshotColumns = "version, state, time, checksum"

    /// Creates the tables of a new file, upgrades a format-1 file to this format (one
    /// transaction: the checksum of every row as it reads now), or refuses a newer one.
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
        try database.execute("""
            CREATE TABLE IF NOT EXISTS actions(
                version INTEGER PRIMARY KEY, type TEXT NOT NULL, payload BLOB NOT NULL, time INTEGER NOT NULL,
                checksum INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS snapshots(
                version INTEGER PRIMARY KEY, state BLOB NOT NULL, time INTEGER NOT NULL, checksum INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS answers(
                key TEXT PRIMARY KEY, fingerprint BLOB NOT NULL, status INTEGER NOT NULL,
                body BLOB NOT NULL, time INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS answers_by_time ON answers(time);
            """)
        if found == 1 {
            try upgradeFromFormat1(database)
        }
    }

    /// The format recorded in `meta`; throws when there is none.
    static func storedFormat(_ database: SQLiteDatabase, path: String) throws -> Int {
        let select = try database.prepare("SELECT value FROM meta WHERE key = 'format'")
        guard try select.step(), let found = Int(select.text(0)) else {
            throw JournalError(code: .corrupt, message: "the journal \(path) has no readable format entry; it was not written by remvvm-server")
        }
        return found
    }

    /// Adds the checksum columns and fills them from the rows as they are, in one transaction: a
    /// crash halfway leaves format 1 untouched, upgraded again at the next start. What was damaged
    /// before the upgrade gets a checksum of its damage (`docs/journal.md`, "Checksums").
    private static func upgradeFromFormat1(_ database: SQLiteDatabase) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute("""
                ALTER TABLE actions ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE snapshots ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
                """)
            let records = try database.prepare("SELECT \(recordColumns) FROM actions ORDER BY version")
            let updateRecord = try database.prepare("UPDATE actions SET checksum = ?2 WHERE version = ?1")
            while try records.step() {
                let record = try records.journalRecord(verify: false)
                updateRecord.reset()
                try updateRecord.bind(1, Int64(record.version))
                try updateRecord.bind(2, Int64(record.checksum))
                try updateRecord.run()
            }
            let snapshots = try database.prepare("SELECT \(snapshotColumns) FROM snapshots ORDER BY version")
            let updateSnapshot = try database.prepare("UPDATE snapshots SET checksum = ?2 WHERE version = ?1")
            while try snapshots.step() {
                let snapshot = try snapshots.journalSnapshot(verify: false)
                updateSnapshot.reset()
                try updateSnapshot.bind(1, Int64(snapshot.version))
                try updateSnapshot.bind(2, Int64(snapshot.checksum))
                try updateSnapshot.run()
            }
            try database.execute("UPDATE meta SET value = '\(format)' WHERE key = 'format'")
        }
    }

    /// Every snapshot in `database`, newest first, each checked against its checksum.
    static func snapshots(in database: SQLiteDatabase) throws(SQLiteError) -> [JournalSnapshot] {
        let select = try database.prepare("SELECT \(snapshotColumns) FROM snapshots ORDER BY version DESC")
        var snapshots: [JournalSnapshot] = []
        while try select.step() {
            snapshots.append(try select.journalSnapshot(verify: true))
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
    /// The current row as a record (columns ``SQLiteJournalStorage/recordColumns``); with
    /// `verify`, marked not intact unless the stored checksum matches.
    func journalRecord(verify: Bool) throws(SQLiteError) -> JournalRecord {
        var record = JournalRecord(version: try version(0), type: text(1), payload: blob(2), time: int64(3))
        if verify {
            record.isIntact = !isNull(4) && int64(4) == Int64(record.checksum)
        }
        return record
    }

    /// The current row as a snapshot (columns ``SQLiteJournalStorage/snapshotColumns``); with
    /// `verify`, marked not intact unless the stored checksum matches.
    func journalSnapshot(verify: Bool) throws(SQLiteError) -> JournalSnapshot {
        var snapshot = JournalSnapshot(version: try version(0), state: blob(1), time: int64(2))
        if verify {
            snapshot.isIntact = !isNull(3) && int64(3) == Int64(snapshot.checksum)
        }
        return snapshot
    }
}
