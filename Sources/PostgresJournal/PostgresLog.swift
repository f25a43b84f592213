public import Journal
import ConcurrencyKit

/// The shared, totally ordered action log of several replicas, in PostgreSQL.
///
/// The log holds many stores (``Journal/StoreID``), each with its own versions 1, 2, 3, …: a row
/// of `remvvm_head` per store holds its head. One connection, used synchronously by one thread
/// (the journal thread for appends, a follower's thread for reads): not `Sendable`. An append is
/// one transaction that may carry groups of several stores: each store's head row is locked (in
/// the order of the stores' ids) and raised, the rows are inserted, `pg_notify` rings the
/// doorbell with the new heads, commit. A store's row lock serializes the appenders of that
/// store, so its versions are gapless and in commit order: a reader that sees version `v` of a
/// store committed sees every version before it (a sequence would let readers skip rows
/// committed out of order). Appenders of different stores lock different rows and never wait
/// for each other.
///
/// When the connection breaks, the failing call throws ``PostgresLogError/Code/unavailable`` (or
/// ``PostgresLogError/Code/commitOutcomeUnknown`` if `COMMIT` was in flight) and the next call
/// reconnects once; callers retry with a backoff (``connect(to:retryingFor:onRetry:)``).
public final class PostgresLog {
    let connection: PostgresConnection
    private var closed = false
    /// The log's identity (`remvvm_meta` key `log`, a UUID made when the schema was created):
    /// another database, or the same one made anew, has another.
    public let identity: String

    /// Connects to `conninfo` (a `postgresql://` URL or libpq `key=value` pairs; empty for libpq's
    /// environment variables), creates the schema if the database has none, and refuses a schema
    /// of another version with ``PostgresLogError/Code/incompatibleSchema``.
    public init(conninfo: String) throws(PostgresLogError) {
        connection = try PostgresConnection(conninfo: conninfo)
        identity = try Self.prepareSchema(connection)
    }

    /// Opens the log, retrying with a doubling pause (50 ms up to 2 s) while PostgreSQL is
    /// unreachable, for up to `patience`; `onRetry` hears every failure (for a log line).
    /// An incompatible schema is not retried.
    public static func connect(
        to conninfo: String,
        retryingFor patience: Duration,
        onRetry: (PostgresLogError, Duration) -> Void = { _, _ in }
    ) throws(PostgresLogError) -> PostgresLog {
        let deadline = ContinuousClock.now + patience
        var pause = Duration.milliseconds(50)
        while true {
            do {
                return try PostgresLog(conninfo: conninfo)
            } catch where error.code == .unavailable && ContinuousClock.now + pause < deadline {
                onRetry(error, pause)
                sleepFor(pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    /// Closes the connection; later calls throw ``PostgresLogError/Code/closed``.
    public func close() {
        closed = true
        connection.close()
    }

    /// Opens the connection again if PostgreSQL ended it while it was idle (a restart, or
    /// `pg_terminate_backend`): a statement sent on it would fail. Fails as
    /// ``PostgresLogError/Code/unavailable`` when PostgreSQL cannot be reached.
    func reconnectIfTerminated() throws(PostgresLogError) {
        if connection.serverSpokeWhileIdle { try connection.connect() }
    }

    /// The newest version of `store` (0 when it has none); ``PostgresLogError/Code/storeNotFound``
    /// when the store does not exist.
    public func head(of store: StoreID = .default) throws(PostgresLogError) -> UInt64 {
        let rows = try run("SELECT version FROM remvvm_head WHERE store = $1", [store.rawValue])
        guard let row = rows.rows.first else { throw .storeNotFound(store) }
        return try Self.number(row.first ?? nil, "head version")
    }

    /// The head and incarnation of each of `stores` that exists; the store `default`'s
    /// incarnation is the log's ``identity`` (as read when this connection opened).
    public func heads(of stores: [StoreID]) throws(PostgresLogError) -> [StoreID: (head: UInt64, incarnation: String)] {
        guard !stores.isEmpty else { return [:] }
        let rows = try run(
            "SELECT store, version, incarnation FROM remvvm_head WHERE store = ANY($1::text[])",
            [Self.arrayLiteral(stores.map(\.rawValue))]
        )
        var heads: [StoreID: (head: UInt64, incarnation: String)] = [:]
        for row in rows.rows {
            guard row.count == 3, let incarnation = row[2] else {
                throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable head row")
            }
            let store = try Self.store(row[0])
            heads[store] = (try Self.number(row[1], "head version"), store == .default ? identity : incarnation)
        }
        return heads
    }

    /// Up to `limit` entries of `store` with a version greater than `version`, oldest first,
    /// without gaps (a gap throws ``PostgresLogError/Code/corrupt``: the replica must never skip
    /// a version). With `fromEarliest`, records removed by retention may be missing at the start
    /// (for reading the log's history, never for applying it).
    public func entries(
        of store: StoreID = .default, after version: UInt64, limit: Int, fromEarliest: Bool = false
    ) throws(PostgresLogError) -> [LogEntry] {
        let rows = try run(
            "SELECT version, type, payload::text, time, idempotency_key FROM remvvm_log WHERE store = $3 AND version > $1 ORDER BY version LIMIT $2",
            [String(version), String(max(1, limit)), store.rawValue]
        )
        return try Self.entries(rows.rows[...], after: version, fromEarliest: fromEarliest)
    }

    /// Up to `limit` entries of each store of `versions` after its version there, in one query
    /// (what a follower of many stores reads after a doorbell): per store as ``entries(of:after:limit:fromEarliest:)``.
    public func entries(after versions: [StoreID: UInt64], limit: Int) throws(PostgresLogError) -> [StoreID: [LogEntry]] {
        try entries(after: versions.mapValues { (version: $0, limit: limit) })
    }

    /// Up to each store's `limit` entries after its `version`, in one query; a gap in any store
    /// throws (``PostgresLogError/Code/corrupt``).
    public func entries(after reads: [StoreID: (version: UInt64, limit: Int)]) throws(PostgresLogError) -> [StoreID: [LogEntry]] {
        var found: [StoreID: [LogEntry]] = [:]
        for (store, page) in try pages(after: reads) {
            found[store] = try page.get()
        }
        return found
    }

    /// ``entries(after:)-([StoreID:(version:limit:)])`` with each store's own outcome: a gap in
    /// one store's versions (its records removed by retention) is that store's failure, not the
    /// others' — a follower stops that store and goes on with the rest. Throws when the query
    /// fails.
    func pages(after reads: [StoreID: (version: UInt64, limit: Int)]) throws(PostgresLogError) -> [StoreID: Result<[LogEntry], PostgresLogError>] {
        guard !reads.isEmpty else { return [:] }
        let stores = Array(reads.keys)
        let versions = reads.mapValues(\.version)
        let rows = try run(
            """
            SELECT version, type, payload::text, time, idempotency_key, w.store
            FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS w(store, applied, page)
            CROSS JOIN LATERAL (
                SELECT version, type, payload, time, idempotency_key FROM remvvm_log
                WHERE store = w.store AND version > w.applied ORDER BY version LIMIT w.page
            ) l
            ORDER BY w.store, version
            """,
            [Self.arrayLiteral(stores.map(\.rawValue)), Self.arrayLiteral(stores.map { versions[$0].map(String.init) }),
             Self.arrayLiteral(stores.map { reads[$0].map { String(max(1, $0.limit)) } })]
        )
        var found: [StoreID: Result<[LogEntry], PostgresLogError>] = [:]
        var start = 0
        while start < rows.rows.count {
            let text = rows.rows[start].last ?? nil
            var end = start + 1
            while end < rows.rows.count, (rows.rows[end].last ?? nil) == text { end += 1 }
            let store = try Self.store(text)
            do throws(PostgresLogError) {
                found[store] = .success(try Self.entries(rows.rows[start..<end], after: versions[store] ?? 0, fromEarliest: false))
            } catch {
                found[store] = .failure(error)
            }
            start = end
        }
        return found
    }

    /// The entries of `rows` (columns version, type, payload, time, key), which follow `version`.
    private static func entries(_ rows: ArraySlice<[String?]>, after version: UInt64, fromEarliest: Bool) throws(PostgresLogError) -> [LogEntry] {
        var entries: [LogEntry] = []
        entries.reserveCapacity(rows.count)
        var expected = version + 1
        for row in rows {
            let number = try Self.number(row[0], "version")
            if fromEarliest, entries.isEmpty, number > expected {
                expected = number
            }
            guard number == expected else {
                throw PostgresLogError(
                    code: .corrupt,
                    message: "the log has no version \(expected) (next is \(number)): the replica stops applying rather than skip it. If retention removed it (journalRetention, once every registered replica's snapshot had passed it), start this replica from a snapshot of version \(number - 1) or later: copy the data directory of another replica"
                )
            }
            guard let type = row[1] else {
                throw PostgresLogError(code: .corrupt, message: "log version \(number) has no type")
            }
            let record = JournalRecord(
                version: number, type: type, payload: row[2].map { Array($0.utf8) } ?? [],
                time: Int64(try Self.number(row[3], "time of version \(number)"))
            )
            entries.append(LogEntry(record: record, idempotencyKey: row[4]))
            expected += 1
        }
        return entries
    }

    /// Forgets the idempotency keys and answers of `store` kept before `time` (milliseconds
    /// since 1970): the log's rows stay, their keys can be used again; answers kept without
    /// actions are deleted. Finds them through indexes on `answer_time`.
    public func removeAnswers(of store: StoreID = .default, keptBefore time: Int64) throws(PostgresLogError) {
        try forgetting(
            """
            WITH answers AS (DELETE FROM remvvm_answers WHERE answer_time < $1 AND store = $2)
            UPDATE remvvm_log SET \(Self.forgetAnswer) WHERE idempotency_key IS NOT NULL AND answer_time < $1 AND store = $2
            """,
            [String(time), store.rawValue]
        )
    }

    /// Forgets `key` of `store` and its answer if they were kept before `time`.
    public func removeAnswer(forKey key: String, of store: StoreID = .default, keptBefore time: Int64) throws(PostgresLogError) {
        try forgetting(
            """
            WITH answers AS (DELETE FROM remvvm_answers WHERE store = $3 AND idempotency_key = $1 AND answer_time < $2)
            UPDATE remvvm_log SET \(Self.forgetAnswer) WHERE store = $3 AND idempotency_key = $1 AND answer_time < $2
            """,
            [key, String(time), store.rawValue]
        )
    }

    /// Runs a statement that forgets answers in a transaction that first takes
    /// ``PostgresLogSchema/removalLock`` shared: a removal of old records moving keys from
    /// records to `remvvm_answers` commits first (the statement, taking its snapshot after the
    /// lock, sees the keys where they went), or waits until this commits. Without it, the
    /// statement could miss a key in flight (gone from its record, not yet visible in
    /// `remvvm_answers`), and the two could lock the same records in opposite orders.
    private func forgetting(_ sql: String, _ parameters: [String?]) throws(PostgresLogError) {
        try inTransaction { () throws(PostgresLogError) in
            try connection.execute("SELECT pg_advisory_xact_lock_shared(\(PostgresLogSchema.removalLock))")
            try connection.execute(sql, parameters)
        }
    }

    private static let forgetAnswer =
        "idempotency_key = NULL, answer_status = NULL, answer_fingerprint = NULL, answer_body = NULL, answer_time = NULL"

    /// The answer kept for `key` in `store` by whichever replica received that request, if any:
    /// on the last row of its actions, or in `remvvm_answers` for a request that appended nothing.
    public func answer(forKey key: String, in store: StoreID = .default) throws(PostgresLogError) -> KeptAnswer? {
        try answers(forKeys: [StoreKey(store: store, key: key)])[StoreKey(store: store, key: key)]
    }

    /// ``answer(forKey:in:)`` of several keys of `store`, in one query.
    public func answers(forKeys keys: [String], in store: StoreID = .default) throws(PostgresLogError) -> [String: KeptAnswer] {
        let found = try answers(forKeys: keys.map { StoreKey(store: store, key: $0) })
        return Dictionary(uniqueKeysWithValues: found.map { ($0.key.key, $0.value) })
    }

    /// ``answer(forKey:in:)`` of several keys, of any stores, in one query (the keys of
    /// concurrent requests).
    public func answers(forKeys keys: [StoreKey]) throws(PostgresLogError) -> [StoreKey: KeptAnswer] {
        guard !keys.isEmpty else { return [:] }
        let rows = try run(
            """
            SELECT l.idempotency_key, answer_status, encode(answer_fingerprint, 'hex'), encode(answer_body, 'hex'), answer_time, l.store
                FROM remvvm_log l JOIN unnest($1::text[], $2::text[]) k(store, key) ON l.store = k.store AND l.idempotency_key = k.key
            UNION ALL
            SELECT a.idempotency_key, answer_status, encode(answer_fingerprint, 'hex'), encode(answer_body, 'hex'), answer_time, a.store
                FROM remvvm_answers a JOIN unnest($1::text[], $2::text[]) k(store, key) ON a.store = k.store AND a.idempotency_key = k.key
            """,
            [Self.arrayLiteral(keys.map(\.store.rawValue)), Self.arrayLiteral(keys.map(\.key))]
        )
        var answers: [StoreKey: KeptAnswer] = [:]
        for row in rows.rows {
            guard row.count == 6, let key = row[0] else { continue }
            guard let fingerprint = row[2].flatMap(Hex.decode), let body = row[3].flatMap(Hex.decode) else {
                throw PostgresLogError(code: .corrupt, message: "the answer kept for idempotency key \(key) cannot be decoded")
            }
            answers[StoreKey(store: try Self.store(row[5]), key: key)] = KeptAnswer(
                key: key, fingerprint: fingerprint, status: Int(try Self.number(row[1], "answer status")),
                body: body, time: Int64(try Self.number(row[4], "answer time"))
            )
        }
        return answers
    }

    func ensureOpen() throws(PostgresLogError) {
        guard !closed else { throw PostgresLogError(code: .closed, message: "the PostgreSQL log was closed") }
        if !connection.isConnected { try connection.connect() }
    }

    /// ``PostgresConnection/inTransaction(committingIf:lostCommitIsUnknown:_:)`` on this log's
    /// connection, reconnected first if it broke.
    @discardableResult
    func inTransaction<Result>(
        committingIf commit: (Result) -> Bool = { _ in true }, lostCommitIsUnknown: Bool = false,
        _ body: () throws(PostgresLogError) -> Result
    ) throws(PostgresLogError) -> Result {
        try ensureOpen()
        return try connection.inTransaction(committingIf: commit, lostCommitIsUnknown: lostCommitIsUnknown, body)
    }

    @discardableResult
    func run(_ sql: String, _ parameters: [String?] = []) throws(PostgresLogError) -> PostgresRows {
        try ensureOpen()
        return try connection.execute(sql, parameters)
    }

    /// Creates or checks the schema, in a transaction whose lock waits give up after
    /// ``schemaLockTimeoutMilliseconds`` (a `queryFailed`, which callers retry like an unreachable server):
    /// a lock left open elsewhere on a table the script alters must not hang every connection.
    /// Returns the log's identity.
    private static func prepareSchema(_ connection: PostgresConnection) throws(PostgresLogError) -> String {
        try connection.inTransaction { () throws(PostgresLogError) -> String in
            try connection.execute("SET LOCAL lock_timeout = \(schemaLockTimeoutMilliseconds)")
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLogSchema.schemaLock))")
            try connection.execute("CREATE TABLE IF NOT EXISTS remvvm_meta (key text PRIMARY KEY, value text NOT NULL)")
            let rows = try connection.execute("SELECT value FROM remvvm_meta WHERE key = 'schema'")
            var found = rows.rows.first?.first ?? nil
            switch found {
            case nil:
                try connection.execute(PostgresLogSchema.create)
                found = String(PostgresLogSchema.version)
            case "1":
                try connection.execute(PostgresLogSchema.upgradeFromVersion1)
                found = String(PostgresLogSchema.version)
            default:
                break
            }
            guard found == String(PostgresLogSchema.version) else {
                throw PostgresLogError(
                    code: .incompatibleSchema,
                    message: "the PostgreSQL log has schema version \(found ?? "none"), this build uses \(PostgresLogSchema.version): refusing to start (use a build for that schema, or another database)"
                )
            }
            try connection.execute(PostgresLogSchema.ensureFunctions)
            let identity = try connection.execute("SELECT value FROM remvvm_meta WHERE key = 'log'")
            guard let value = identity.rows.first?.first ?? nil else {
                throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has no identity (remvvm_meta key log)")
            }
            return value
        }
    }

    /// How long the schema script waits for a lock (the schema lock of replicas starting
    /// together, a table it alters) before it fails, in milliseconds: it takes milliseconds.
    static let schemaLockTimeoutMilliseconds = 10_000

    /// The store named by `text`, a column of the log.
    static func store(_ text: String?) throws(PostgresLogError) -> StoreID {
        guard let text, let store = try? StoreID(text) else {
            throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable store id: \(text ?? "NULL")")
        }
        return store
    }

    static func number(_ text: String?, _ what: String) throws(PostgresLogError) -> UInt64 {
        guard let text, let value = UInt64(text) else {
            throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable \(what): \(text ?? "NULL")")
        }
        return value
    }
}
