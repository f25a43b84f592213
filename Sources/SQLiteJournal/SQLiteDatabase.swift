internal import CSQLite

/// An SQLite result code that is not success, with SQLite's message and the statement.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let sql: String?

    var description: String {
        guard code != Self.damagedCode, code != Self.refusedCode else { return message }
        return "SQLite error \(code) (\(message))" + (sql.map { " in \"\($0)\"" } ?? "")
    }

    /// Not SQLite's: what the file holds breaks the journal's rules (SQLite read it fine).
    static let damagedCode: Int32 = -1

    /// Not SQLite's: a write the journal's rules refuse (a version written twice).
    static let refusedCode: Int32 = -2

    /// A write that would break the journal's rules: `problem` says how.
    static func refused(_ problem: String) -> SQLiteError {
        SQLiteError(code: refusedCode, message: problem, sql: nil)
    }

    /// The journal's content is damaged: `problem` says how, and the message what to do.
    static func damaged(_ problem: String) -> SQLiteError {
        SQLiteError(
            code: damagedCode,
            message: "\(problem): the file is damaged; restore the data directory from a backup, or move it aside to start empty",
            sql: nil
        )
    }

    /// The journal file was deleted, renamed or replaced under the server: a write failure (each
    /// commit is refused with 503 until the server is restarted where the journal is).
    static let fileMoved = SQLiteError(
        code: SQLITE_IOERR,
        message: "the journal file was deleted, renamed or replaced while the server ran (its data directory removed, moved or restored?): nothing more is acknowledged; stop the server and start it on the data directory that holds the journal",
        sql: nil
    )

    /// Disk full, I/O error, read-only: the commit could not be made durable.
    var isWriteFailure: Bool {
        let primary = code & 0xff
        return primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_READONLY
            || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM
    }

    /// Another connection holds a lock.
    var isBusy: Bool {
        let primary = code & 0xff
        return primary == SQLITE_BUSY || primary == SQLITE_LOCKED
    }
}

/// One SQLite connection. Not thread-safe: its owner serializes every call.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    let path: String
    /// `BEGIN IMMEDIATE` and `COMMIT`, once prepared (``transaction(_:)``).
    private var transactionStatements: [OpaquePointer?] = [nil, nil]

    /// Opens (creating if asked) the database at `path`.
    init(path: String, create: Bool, readOnly: Bool = false) throws(SQLiteError) {
        var handle: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: message, sql: nil)
        }
        self.handle = handle
        self.path = path
    }

    deinit {
        for statement in transactionStatements {
            sqlite3_finalize(statement)
        }
        sqlite3_close_v2(handle)
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE` of this connection.
    var changes: Int {
        Int(sqlite3_changes(handle))
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text, sql: sql)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE` … `COMMIT`); rolls back if it throws.
    /// `BEGIN` and `COMMIT` are prepared once per connection: `sqlite3_exec` parsed both again in
    /// every commit.
    func transaction(_ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try runTransactionStatement(0, "BEGIN IMMEDIATE")
        do {
            try body()
            try runTransactionStatement(1, "COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `BEGIN IMMEDIATE` (`index` 0) or `COMMIT` (1), prepared on first use and kept (raw
    /// handles, not ``SQLiteStatement``s, which hold their connection: the connection would then
    /// never be released, nor closed), then resets it so that it holds nothing open.
    private func runTransactionStatement(_ index: Int, _ sql: String) throws(SQLiteError) {
        if transactionStatements[index] == nil {
            var statement: OpaquePointer?
            let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard status == SQLITE_OK, let statement else {
                throw SQLiteError(code: status, message: lastMessage, sql: sql)
            }
            transactionStatements[index] = statement
        }
        let statement = transactionStatements[index]
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE else {
            let error = SQLiteError(code: status, message: lastMessage, sql: sql)
            sqlite3_reset(statement)
            throw error
        }
        sqlite3_reset(statement)
    }

    /// Whether the database file was deleted, renamed or replaced since it was opened
    /// (`SQLITE_FCNTL_HAS_MOVED`: SQLite compares the open file with what its path names now).
    /// Commits would then go into a file nobody opens again.
    func fileHasMoved() throws(SQLiteError) -> Bool {
        var moved: Int32 = 0
        let status = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        try check(status, "file_control(HAS_MOVED)")
        return moved != 0
    }

    /// Runs a `PASSIVE` checkpoint of the write-ahead log: copies what no reader still needs into
    /// the database file, never waiting for readers or writers; throws `SQLITE_BUSY` at once if
    /// another connection is checkpointing.
    func checkpointPassive() throws(SQLiteError) {
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        try check(status, "wal_checkpoint(PASSIVE)")
    }

    /// Copies the whole database into a new file at `destination` with SQLite's online backup API
    /// (`sqlite3_backup_init`, one `sqlite3_backup_step(-1)`, `sqlite3_backup_finish`): the copy
    /// is of one read transaction, so it is consistent while other connections, in this process
    /// or another, go on writing (in WAL mode they are not held up). `destination` must not exist.
    func backup(to destination: String) throws(SQLiteError) {
        let target = try SQLiteDatabase(path: destination, create: true)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_extended_errcode(target.handle), message: target.lastMessage, sql: "backup_init")
        }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, -1)
            // A writer of this process holding the source's lock for a moment: try again shortly.
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(5) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else {
            throw SQLiteError(code: status, message: String(cString: sqlite3_errstr(status)), sql: "backup_step")
        }
        try target.check(finished, "backup_finish")
        // The copy's own write-ahead log into its file, so that the file alone is the copy.
        try target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// What `PRAGMA integrity_check` finds (at most `limit` problems), or an empty array when it
    /// answers `ok`: every page, index and constraint SQLite can check.
    func integrityProblems(limit: Int = 100) throws(SQLiteError) -> [String] {
        var lines: [String] = []
        do throws(SQLiteError) {
            let check = try prepare("PRAGMA integrity_check(\(limit))")
            while try check.step() {
                lines.append(check.text(0))
            }
        } catch where [SQLITE_CORRUPT, SQLITE_NOTADB].contains(error.code & 0xff) {
            // Damage so bad that the check itself stops: that is its finding.
            lines.append(error.message)
        }
        return lines == ["ok"] ? [] : lines
    }

    /// A prepared statement, kept for reuse.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw SQLiteError(code: status, message: lastMessage, sql: sql)
        }
        return SQLiteStatement(statement: statement, database: self, sql: sql)
    }

    /// The message of the last failed call.
    var lastMessage: String {
        String(cString: sqlite3_errmsg(handle))
    }

    /// Checks a status from a call on this connection.
    func check(_ status: Int32, _ sql: String?) throws(SQLiteError) {
        guard status == SQLITE_OK || status == SQLITE_DONE || status == SQLITE_ROW else {
            throw SQLiteError(code: status, message: lastMessage, sql: sql)
        }
    }
}

/// A prepared statement of a ``SQLiteDatabase``; reset before each use.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase
    let sql: String

    fileprivate init(statement: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.statement = statement
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Clears the previous run's state and bindings.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try database.check(sqlite3_bind_int64(statement, index, value), sql)
    }

    func bind(_ index: Int32, _ value: String) throws(SQLiteError) {
        try database.check(sqlite3_bind_text(statement, index, value, -1, remvvm_sqlite_transient()), sql)
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) throws(SQLiteError) {
        let status = bytes.withUnsafeBytes { buffer in
            // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
            sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), remvvm_sqlite_transient())
        }
        try database.check(status, sql)
    }

    /// Advances; true while there is a row to read.
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: status, message: database.lastMessage, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    /// Column `column` as a version (a positive integer); a damaged file may hold anything.
    func version(_ column: Int32) throws(SQLiteError) -> UInt64 {
        let value = int64(column)
        guard value > 0 else {
            throw SQLiteError.damaged("version \(value) is not a version (versions start at 1)")
        }
        return UInt64(value)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// Column `column` as an integer, nil when it is NULL (a stored checksum: NULL matches none).
    func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    func text(_ column: Int32) -> String {
        withTextBytes(column) { String(decoding: $0, as: UTF8.self) }
    }

    func blob(_ column: Int32) -> [UInt8] {
        withBlobBytes(column) { Array($0) }
    }

    /// `body` of column `column`'s text as its UTF-8 bytes, without copying them (valid only
    /// inside `body`).
    func withTextBytes<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // The pointer first, then its length (SQLite's order: the call may convert the value).
        let pointer = sqlite3_column_text(statement, column)
        let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(statement, column))
        return body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// `body` of column `column`'s bytes, without copying them (valid only inside `body`).
    func withBlobBytes<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let pointer = sqlite3_column_blob(statement, column)
        let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(statement, column))
        return body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
