internal import CPostgres
import ConcurrencyKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One libpq connection, used synchronously. Not thread-safe: its owner serializes every call
/// (the journal thread, or the follower's thread). Every libpq call is checked; failures become
/// ``PostgresLogError``s. No Swift closure is handed to C: notices are dropped by a plain C
/// function of the shim (errors reach Swift as thrown errors).
final class PostgresConnection {
    private var handle: OpaquePointer?
    let conninfo: String
    /// Statements prepared on this connection, by SQL text: parsing, analysing and planning
    /// the same few statements for every append and every read was a third of PostgreSQL's CPU
    /// under load (`docs/replicas.md`, Measured).
    private var prepared: [String: String] = [:]
    /// The most statements prepared per connection (texts that vary, like a multi-row `INSERT`
    /// of the checked path, beyond that run unprepared).
    private static let preparedLimit = 32
    /// Session settings, made again on every new connection (a reconnect starts a new session).
    private var settings = ["SET client_min_messages = warning"]

    /// Connects with `conninfo` (a `postgresql://` URL or `key=value` pairs; empty means libpq's
    /// environment variables and defaults).
    init(conninfo: String) throws(PostgresLogError) {
        self.conninfo = conninfo
        try connect()
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Whether the connection is up as far as libpq knows (it learns of a broken one on use).
    var isConnected: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether the server sent something, or closed the connection, while it was idle (checked
    /// without blocking). On a connection that neither listens nor waits for a result, that is
    /// PostgreSQL terminating it (restarted or shut down): its "terminating connection" message
    /// can arrive before the close itself, so both count. A statement is then better sent on a new
    /// connection: on this one its failure would leave its outcome unknown.
    var serverSpokeWhileIdle: Bool {
        guard let handle else { return true }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) != 0
    }

    /// Closes the connection for good.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Drops the connection, if any, and opens a new one.
    func connect() throws(PostgresLogError) {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = [:]
        guard let connection = Self.open(conninfo) else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection failed: out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.redacting(Self.trimmed(PQerrorMessage(connection)), of: conninfo)
            PQfinish(connection)
            throw PostgresLogError(code: .unavailable, message: "cannot connect to PostgreSQL: \(message)")
        }
        remvvm_pq_silence_notices(connection)
        handle = connection
        for setting in settings {
            try execute(setting)
        }
    }

    /// The value libpq uses for connection parameter `keyword` on this connection (from the
    /// connection string, a default, the environment or a service file), or nil.
    func parameter(_ keyword: String) -> String? {
        guard let handle, let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword {
                return option.pointee.val.map { String(cString: $0) }
            }
            option += 1
        }
        return nil
    }

    /// Makes `setting` (a `SET` statement) now and again after every reconnect.
    func keepSetting(_ setting: String) throws(PostgresLogError) {
        settings.append(setting)
        try execute(setting)
    }

    /// Runs `body` between `BEGIN` and `COMMIT` — or `ROLLBACK`, when `body` throws or
    /// `commit` says no to what it returned — and returns what it returned. A connection that
    /// breaks during `COMMIT` throws ``PostgresLogError/Code/unavailable``, or with
    /// `lostCommitIsUnknown` ``PostgresLogError/Code/commitOutcomeUnknown``: the transaction may
    /// have committed (for callers that must not take it for undone, and run it again).
    func inTransaction<Result>(
        committingIf commit: (Result) -> Bool = { _ in true }, lostCommitIsUnknown: Bool = false,
        _ body: () throws(PostgresLogError) -> Result
    ) throws(PostgresLogError) -> Result {
        try execute("BEGIN")
        do throws(PostgresLogError) {
            let result = try body()
            let committing = commit(result)
            do throws(PostgresLogError) {
                try execute(committing ? "COMMIT" : "ROLLBACK")
            } catch where committing && lostCommitIsUnknown && error.code == .unavailable {
                throw PostgresLogError(
                    code: .commitOutcomeUnknown,
                    message: "the connection broke during COMMIT: the transaction may or may not be committed (\(error.message))",
                    sqlState: error.sqlState
                )
            }
            return result
        } catch {
            if isConnected { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs one statement (or several, without parameters) and returns its rows as text.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresLogError) -> PostgresRows {
        let name = parameters.isEmpty ? nil : try preparedStatement(sql, parameterCount: parameters.count)
        return try execute(sql, parameters, preparedAs: name)
    }

    /// ``execute(_:_:)`` with the name `sql` was prepared under, if it was.
    private func execute(_ sql: String, _ parameters: [String?], preparedAs name: String?) throws(PostgresLogError) -> PostgresRows {
        guard let handle else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection is closed")
        }
        let result: OpaquePointer?
        if parameters.isEmpty {
            result = PQexec(handle, sql)
        } else if let name {
            result = Self.withCStrings(parameters) { values in
                PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
            }
        } else {
            result = Self.withCStrings(parameters) { values in
                PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
            }
        }
        guard let result else {
            throw failure(sql: sql, message: Self.trimmed(PQerrorMessage(handle)), sqlState: nil)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw failure(sql: sql, message: Self.trimmed(PQresultErrorMessage(result)), sqlState: sqlState)
        }
        return PostgresRows(result)
    }

    /// Runs `sql` outside any open transaction, as a transaction of its own (committed when it
    /// ends), and returns its rows. Throws ``PostgresLogError/Code/commitOutcomeUnknown`` when the
    /// connection breaks once it was sent (it may have committed), `queryFailed` (with the
    /// SQLSTATE) when it failed (then nothing it did is stored).
    func executeInOwnTransaction(_ sql: String, _ parameters: [String?]) throws(PostgresLogError) -> PostgresRows {
        guard let handle else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection is closed")
        }
        // Prepared first: a failure there leaves nothing sent, so nothing stored.
        let name = try preparedStatement(sql, parameterCount: parameters.count)
        do throws(PostgresLogError) {
            return try execute(sql, parameters, preparedAs: name)
        } catch where error.code == .unavailable || PQstatus(handle) != CONNECTION_OK {
            throw PostgresLogError(
                code: .commitOutcomeUnknown,
                message: "the connection broke once the append was sent: it may or may not be stored (\(error.message))",
                sqlState: error.sqlState
            )
        }
    }

    /// The name of `sql` prepared on this connection (preparing it the first time), or nil past
    /// ``preparedLimit`` statements.
    private func preparedStatement(_ sql: String, parameterCount: Int) throws(PostgresLogError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.preparedLimit, let handle else { return nil }
        let name = "remvvm_\(prepared.count)"
        guard let result = PQprepare(handle, name, sql, Int32(parameterCount), nil) else {
            throw failure(sql: sql, message: Self.trimmed(PQerrorMessage(handle)), sqlState: nil)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw failure(sql: sql, message: Self.trimmed(PQresultErrorMessage(result)), sqlState: sqlState)
        }
        prepared[sql] = name
        return name
    }

    /// Starts listening on `channel` (a plain identifier).
    func listen(_ channel: String) throws(PostgresLogError) {
        try execute("LISTEN \(channel)")
    }

    /// Reads what the server sent and returns the notifications received (channel, payload), waiting
    /// up to `timeout` for the socket to become readable when none is buffered yet. A rung
    /// `wakeBell` (another thread has something for the waiter) ends the wait too: it is drained
    /// and `woken` is true.
    func notifications(
        waitingUpTo timeout: Duration, wakeBell: Doorbell? = nil
    ) throws(PostgresLogError) -> (received: [(channel: String, payload: String)], woken: Bool) {
        var received = try drainNotifications()
        if !received.isEmpty { return (received, false) }
        guard let handle else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection is closed")
        }
        let socket = PQsocket(handle)
        guard socket >= 0 else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection has no socket")
        }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeBell?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),  // ignored when -1
        ]
        let milliseconds = Int32(clamping: timeout.wholeMilliseconds)
        let ready = poll(&descriptors, 2, max(0, milliseconds))
        if ready < 0 && errno != EINTR {
            throw PostgresLogError(code: .unavailable, message: "poll on the PostgreSQL socket failed (errno \(errno))")
        }
        var woken = false
        if let wakeBell, descriptors[1].revents & Int16(POLLIN) != 0 {
            woken = wakeBell.drain() > 0
        }
        received = try drainNotifications()
        return (received, woken)
    }

    private func drainNotifications() throws(PostgresLogError) -> [(channel: String, payload: String)] {
        guard let handle else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection is closed")
        }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresLogError(code: .unavailable, message: "PostgreSQL connection lost: \(Self.trimmed(PQerrorMessage(handle)))")
        }
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }

    private func failure(sql: String, message: String, sqlState: String?) -> PostgresLogError {
        let broken = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
        let statement = sql.count > 80 ? String(sql.prefix(80)) + "…" : sql
        if broken {
            return PostgresLogError(code: .unavailable, message: "PostgreSQL connection lost during \"\(statement)\": \(message)", sqlState: sqlState)
        }
        return PostgresLogError(code: .queryFailed, message: "PostgreSQL refused \"\(statement)\": \(message)", sqlState: sqlState)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "no message" }
        return oneLine(String(cString: message).trimmingTrailingNewlines())
    }

    /// Calls `body` with `strings` as C strings (NULL for nil), valid during the call only.
    static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// The rows of one result, copied out of libpq as text (NULL as nil).
struct PostgresRows {
    let rows: [[String?]]

    fileprivate init(_ result: OpaquePointer) {
        let count = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var rows: [[String?]] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [String?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(values)
        }
        self.rows = rows
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline || last == " " { text = text.dropLast() }
        return String(text)
    }
}
