public import Journal
import ConcurrencyKit

/// The shared, totally ordered action log of several replicas, in PostgreSQL.
///
/// One connection, used synchronously by one thread (the journal thread for appends, a
/// follower's thread for reads): not `Sendable`. A group append is one transaction: the one-row
/// head is locked by `UPDATE remvvm_head SET version = version + n RETURNING version`, the rows
/// are inserted, `pg_notify` rings the doorbell, commit. The row lock serializes appenders, so
/// versions are gapless and in commit order: a reader that sees version `v` committed sees every
/// version before it (a sequence would let readers skip rows committed out of order).
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

    /// The newest version in the log (0 when empty).
    public func head() throws(PostgresLogError) -> UInt64 {
        let rows = try run("SELECT version FROM remvvm_head")
        return try Self.number(rows.rows.first?.first ?? nil, "head version")
    }

    /// Appends `groups` in one transaction, each with consecutive versions in the given order.
    /// A group whose ``LogGroup/expectedHeads`` do not hold the head is left out (``LogGroupOutcome/headMoved(head:)``),
    /// so is one whose idempotency key the log already holds (``LogGroupOutcome/duplicateKey(_:)``);
    /// the others are stored. A group without actions that keeps an answer (a request that
    /// appended nothing: `202`, or a `422` of its first action) keeps it in `remvvm_answers`
    /// (``LogGroupOutcome/kept``); its key is refused like any other the log holds, and holds it
    /// against later groups alike. One outcome per group that has actions or an answer (groups
    /// with neither are ignored), in order. A group holding data PostgreSQL refuses to store is
    /// left out (``LogGroupOutcome/unstorable(_:)``), the others stored. On a throw nothing is
    /// stored, except with ``PostgresLogError/Code/commitOutcomeUnknown``.
    public func append(_ groups: [LogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        try ensureOpen()
        let nonEmpty = groups.filter { !$0.isEmpty }
        guard !nonEmpty.isEmpty else { return [] }
        do throws(PostgresLogError) {
            return try appendTogether(nonEmpty)
        } catch where error.isDataRefusal {
            // Data PostgreSQL cannot store fails the whole statement (nothing stored): append
            // each group alone, so that only the group holding it is refused.
            guard nonEmpty.count > 1 else { return [.unstorable(error.message)] }
            var outcomes: [LogGroupOutcome] = []
            for group in nonEmpty {
                do throws(PostgresLogError) {
                    outcomes += try appendTogether([group])
                } catch where error.isDataRefusal {
                    outcomes.append(.unstorable(error.message))
                }
            }
            return outcomes
        }
    }

    /// ``append(_:)`` of non-empty groups in one transaction; throws for data PostgreSQL refuses.
    private func appendTogether(_ nonEmpty: [LogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        if !nonEmpty.contains(where: { $0.expectedHeads != nil || $0.actions.isEmpty }) {
            do throws(PostgresLogError) {
                return try appendWithoutRoundTripsUnderTheLock(nonEmpty)
            } catch where error.sqlState == "23505" {
                // A key already in the log: nothing was stored; the checked path below tells
                // which group it was and stores the others.
            }
        }
        try run("BEGIN")
        do throws(PostgresLogError) {
            let outcomes = try appendInTransaction(nonEmpty)
            do throws(PostgresLogError) {
                try connection.execute("COMMIT")
            } catch where error.code == .unavailable {
                throw PostgresLogError(
                    code: .commitOutcomeUnknown,
                    message: "the connection broke during COMMIT: the appended group may or may not be stored (\(error.message))",
                    sqlState: error.sqlState
                )
            }
            return outcomes
        } catch {
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Up to `limit` entries with a version greater than `version`, oldest first, without gaps
    /// (a gap throws ``PostgresLogError/Code/corrupt``: the replica must never skip a version).
    /// With `fromEarliest`, records removed by retention may be missing at the start (for
    /// reading the log's history, never for applying it).
    public func entries(after version: UInt64, limit: Int, fromEarliest: Bool = false) throws(PostgresLogError) -> [LogEntry] {
        let rows = try run(
            "SELECT version, type, payload::text, time, idempotency_key FROM remvvm_log WHERE version > $1 ORDER BY version LIMIT $2",
            [String(version), String(max(1, limit))]
        )
        var entries: [LogEntry] = []
        entries.reserveCapacity(rows.rows.count)
        var expected = version + 1
        for row in rows.rows {
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

    /// Forgets the idempotency keys and answers kept before `time` (milliseconds since 1970):
    /// the log's rows stay, their keys can be used again; answers kept without actions are
    /// deleted. Finds them through indexes on `answer_time`.
    public func removeAnswers(keptBefore time: Int64) throws(PostgresLogError) {
        try forgetting(
            """
            WITH answers AS (DELETE FROM remvvm_answers WHERE answer_time < $1)
            UPDATE remvvm_log SET \(Self.forgetAnswer) WHERE idempotency_key IS NOT NULL AND answer_time < $1
            """,
            [String(time)]
        )
    }

    /// Forgets `key` and its answer if they were kept before `time`.
    public func removeAnswer(forKey key: String, keptBefore time: Int64) throws(PostgresLogError) {
        try forgetting(
            """
            WITH answers AS (DELETE FROM remvvm_answers WHERE idempotency_key = $1 AND answer_time < $2)
            UPDATE remvvm_log SET \(Self.forgetAnswer) WHERE idempotency_key = $1 AND answer_time < $2
            """,
            [key, String(time)]
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

    /// The answer kept for `key` by whichever replica received that request, if any: on the last
    /// row of its actions, or in `remvvm_answers` for a request that appended nothing.
    public func answer(forKey key: String) throws(PostgresLogError) -> KeptAnswer? {
        try answers(forKeys: [key])[key]
    }

    /// Plans every statement of this connection for its parameters at each execution, instead
    /// of caching a generic plan after five: a plan cached while the log was small (a sequential
    /// scan of a few pages) would go on scanning the whole log as it grows, since nothing
    /// re-plans it until the table is next analyzed. Measured on the keyed lookups of
    /// ``answers(forKeys:)``: 12 ms per query of about 9 keys, against 8 µs per key before.
    /// Kept across reconnects.
    public func planEachExecution() throws(PostgresLogError) {
        try ensureOpen()
        try connection.keepSetting("SET plan_cache_mode = force_custom_plan")
    }

    /// Cancels every later statement of this connection that runs (or waits for a lock) longer
    /// than `timeout` (PostgreSQL's `statement_timeout`), also after a reconnect.
    public func limitStatements(to timeout: Duration) throws(PostgresLogError) {
        try ensureOpen()
        try connection.keepSetting("SET statement_timeout = \(max(1, timeout.wholeMilliseconds))")
    }

    /// ``answer(forKey:)`` of several keys in one query (the keys of concurrent requests).
    public func answers(forKeys keys: [String]) throws(PostgresLogError) -> [String: KeptAnswer] {
        guard !keys.isEmpty else { return [:] }
        let rows = try run(
            """
            SELECT idempotency_key, answer_status, encode(answer_fingerprint, 'hex'), encode(answer_body, 'hex'), answer_time
                FROM remvvm_log WHERE idempotency_key = ANY($1::text[])
            UNION ALL
            SELECT idempotency_key, answer_status, encode(answer_fingerprint, 'hex'), encode(answer_body, 'hex'), answer_time
                FROM remvvm_answers WHERE idempotency_key = ANY($1::text[])
            """,
            [Self.arrayLiteral(keys)]
        )
        var answers: [String: KeptAnswer] = [:]
        for row in rows.rows {
            guard let key = row[0] else { continue }
            guard let fingerprint = row[2].flatMap(Hex.decode), let body = row[3].flatMap(Hex.decode) else {
                throw PostgresLogError(code: .corrupt, message: "the answer kept for idempotency key \(key) cannot be decoded")
            }
            answers[key] = KeptAnswer(
                key: key, fingerprint: fingerprint, status: Int(try Self.number(row[1], "answer status")),
                body: body, time: Int64(try Self.number(row[4], "answer time"))
            )
        }
        return answers
    }

    // MARK: - Internals

    private func appendInTransaction(_ groups: [LogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        var outcomes: [LogGroupOutcome] = []
        var accepted: [LogGroup] = []
        var head: UInt64
        if groups.contains(where: { $0.expectedHeads != nil || $0.answer != nil }) {
            // Expectations and idempotency keys are checked under the head's row lock: it
            // serializes every appender of every replica, so the checks are globally correct.
            let rows = try connection.execute("SELECT version FROM remvvm_head FOR UPDATE")
            head = try Self.number(rows.rows.first?.first ?? nil, "head version")
            var keys = try existingKeys(groups.compactMap(\.answer?.key))
            var next = head
            for group in groups where !group.isEmpty {
                if let key = group.answer?.key {
                    guard keys.insert(key).inserted else {
                        outcomes.append(.duplicateKey(key))
                        continue
                    }
                }
                if let expected = group.expectedHeads, !expected.contains(next) {
                    outcomes.append(.headMoved(head: next))
                    continue
                }
                if group.actions.isEmpty, let answer = group.answer {
                    try keep(answer)
                    outcomes.append(.kept)
                    continue
                }
                accepted.append(group)
                outcomes.append(.appended(next + 1...next + UInt64(group.actions.count)))
                next += UInt64(group.actions.count)
            }
            let count = next - head
            if count > 0 {
                try connection.execute("UPDATE remvvm_head SET version = version + $1", [String(count)])
            }
        } else {
            accepted = groups.filter { !$0.actions.isEmpty }
            let count = accepted.reduce(0) { $0 + $1.actions.count }
            guard count > 0 else { return [] }
            let rows = try connection.execute("UPDATE remvvm_head SET version = version + $1 RETURNING version", [String(count)])
            head = try Self.number(rows.rows.first?.first ?? nil, "head version") - UInt64(count)
            var next = head
            for group in accepted {
                outcomes.append(.appended(next + 1...next + UInt64(group.actions.count)))
                next += UInt64(group.actions.count)
            }
        }
        guard !accepted.isEmpty else { return outcomes }
        let newHead = try insert(accepted, after: head)
        try connection.execute("SELECT pg_notify('\(PostgresLogSchema.channel)', $1)", [String(newHead)])
        return outcomes
    }

    /// The append of groups without `If-Match`, each with actions, as one statement that is its
    /// own transaction (one round trip; with keys, a call of ``PostgresLogSchema/appendFunction``): the
    /// head's row lock is taken and released inside the server, without waiting for this client in
    /// between (on a busy machine, each round trip under the lock also waits for this thread to be
    /// scheduled, and the lock serializes every replica's appends). Answers that name their
    /// group's last version are completed in SQL. A key the log already holds, on a row or kept
    /// without actions, fails the whole call with a unique violation (`23505`): nothing is stored
    /// then.
    private func appendWithoutRoundTripsUnderTheLock(_ groups: [LogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        var ordinals: [String?] = [], types: [String?] = [], payloads: [String?] = [], times: [String?] = []
        var keys: [String?] = [], statuses: [String?] = [], fingerprints: [String?] = []
        var bodies: [String?] = [], suffixes: [String?] = [], answerTimes: [String?] = []
        var ranges: [ClosedRange<UInt64>] = []
        var count: UInt64 = 0
        for group in groups {
            ranges.append(count + 1...count + UInt64(group.actions.count))
            for (index, action) in group.actions.enumerated() {
                count += 1
                ordinals.append(String(count))
                types.append(action.type)
                payloads.append(action.payload.isEmpty ? nil : String(decoding: action.payload, as: UTF8.self))
                times.append(String(action.time))
                let answer = index == group.actions.count - 1 ? group.answer : nil
                keys.append(answer?.key)
                statuses.append(answer.map { String($0.status) })
                fingerprints.append(answer.map { "\\x" + Hex.encode($0.fingerprint) })
                if let answer, let offset = group.answerVersionOffset, offset >= 0, offset <= answer.body.count {
                    bodies.append("\\x" + Hex.encode(Array(answer.body[..<offset])))
                    suffixes.append("\\x" + Hex.encode(Array(answer.body[offset...])))
                } else {
                    bodies.append(answer.map { "\\x" + Hex.encode($0.body) })
                    suffixes.append(nil)
                }
                answerTimes.append(answer.map { String($0.time) })
            }
        }
        // The statement commits itself, so its failure on a connection the server is closing
        // (PostgreSQL restarted while it was idle) would leave the outcome unknown: reopen such a
        // connection first (if PostgreSQL is down, that fails as `unavailable`: nothing sent).
        if connection.serverSpokeWhileIdle { try connection.connect() }
        // Without keys there is nothing to look for in `remvvm_answers`: one statement does it,
        // cheaper than the function (measured: 381–418 µs per append against 522–546 µs).
        let keyed = groups.contains { $0.answer != nil }
        let rows = try connection.executeInOwnTransaction(
            keyed ? Self.appendCallingTheFunction : Self.appendWithoutKeys,
            [String(count), Self.arrayLiteral(ordinals), Self.arrayLiteral(types), Self.arrayLiteral(payloads),
             Self.arrayLiteral(times), Self.arrayLiteral(keys), Self.arrayLiteral(statuses),
             Self.arrayLiteral(fingerprints), Self.arrayLiteral(bodies), Self.arrayLiteral(suffixes),
             Self.arrayLiteral(answerTimes)]
        )
        let head = try Self.number(rows.rows.first?.first ?? nil, "head version")
        let base = head - count
        return ranges.map { .appended(base + $0.lowerBound...base + $0.upperBound) }
    }

    /// The append of groups with a key: ``PostgresLogSchema/appendFunction``, which checks
    /// `remvvm_answers` after the head's row lock.
    private static let appendCallingTheFunction =
        "SELECT \(PostgresLogSchema.appendFunction)($1, $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::int[], $8::bytea[], $9::bytea[], $10::bytea[], $11::bigint[])"

    /// The append of groups without keys, as one statement: the same steps as
    /// ``PostgresLogSchema/appendFunction`` but the check of `remvvm_answers`, which only keys need.
    private static let appendWithoutKeys = """
        WITH head AS (UPDATE remvvm_head SET version = version + $1 RETURNING version),
        rows AS (
            SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::int[],
                                 $8::bytea[], $9::bytea[], $10::bytea[], $11::bigint[])
                AS \(PostgresLogSchema.appendedRow)
        ),
        inserted AS (
            \(PostgresLogSchema.insertAppendedRows(base: "head.version - $1", from: "head, rows r"))
        )
        SELECT version, pg_notify('\(PostgresLogSchema.channel)', version::text) FROM head
        """

    /// A PostgreSQL array literal of `elements` (each double-quoted with `\` and `"` escaped;
    /// nil as NULL), for an array parameter.
    static func arrayLiteral(_ elements: [String?]) -> String {
        var literal = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { literal.append(",") }
            guard let element else {
                literal.append("NULL")
                continue
            }
            literal.append("\"")
            for character in element {
                if character == "\\" || character == "\"" { literal.append("\\") }
                literal.append(character)
            }
            literal.append("\"")
        }
        return literal + "}"
    }

    /// Which of `keys` the log already holds, on its rows or with answers kept without actions
    /// (read inside the append's transaction, after the head's row lock).
    private func existingKeys(_ keys: [String]) throws(PostgresLogError) -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let array = Self.arrayLiteral(keys)
        let rows = try connection.execute(
            """
            SELECT idempotency_key FROM remvvm_log WHERE idempotency_key = ANY($1::text[])
            UNION ALL
            SELECT idempotency_key FROM remvvm_answers WHERE idempotency_key = ANY($1::text[])
            """,
            [array]
        )
        return Set(rows.rows.compactMap { $0.first ?? nil })
    }

    /// Keeps the answer of a request that appended nothing (inside the append's transaction,
    /// after its key was found new under the head's row lock).
    private func keep(_ answer: KeptAnswer) throws(PostgresLogError) {
        try connection.execute(
            "INSERT INTO remvvm_answers (idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time) VALUES ($1, $2, $3::bytea, $4::bytea, $5)",
            [answer.key, String(answer.status), "\\x" + Hex.encode(answer.fingerprint), "\\x" + Hex.encode(answer.body), String(answer.time)]
        )
    }

    /// Inserts the rows of `groups` with versions from `head + 1`, in statements of at most 512 rows.
    private func insert(_ groups: [LogGroup], after head: UInt64) throws(PostgresLogError) -> UInt64 {
        var rows: [[String?]] = []
        var version = head
        for group in groups {
            for (index, action) in group.actions.enumerated() {
                version += 1
                let answer = index == group.actions.count - 1 ? group.answer(lastVersion: version) : nil
                rows.append([
                    String(version), action.type,
                    action.payload.isEmpty ? nil : String(decoding: action.payload, as: UTF8.self),
                    String(action.time), answer?.key, answer.map { String($0.status) },
                    answer.map { "\\x" + Hex.encode($0.fingerprint) }, answer.map { "\\x" + Hex.encode($0.body) },
                    answer.map { String($0.time) },
                ])
            }
        }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 512, rows.count)]
            var placeholders: [String] = []
            var parameters: [String?] = []
            for row in chunk {
                let base = parameters.count
                placeholders.append("($\(base + 1), $\(base + 2), $\(base + 3)::jsonb, $\(base + 4), $\(base + 5), $\(base + 6), $\(base + 7)::bytea, $\(base + 8)::bytea, $\(base + 9))")
                parameters += row
            }
            try connection.execute(
                "INSERT INTO remvvm_log (version, type, payload, time, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time) VALUES "
                    + placeholders.joined(separator: ", "),
                parameters
            )
            start += chunk.count
        }
        return version
    }

    private func ensureOpen() throws(PostgresLogError) {
        guard !closed else { throw PostgresLogError(code: .closed, message: "the PostgreSQL log was closed") }
        if !connection.isConnected { try connection.connect() }
    }

    /// ``PostgresConnection/inTransaction(committingIf:_:)`` on this log's connection,
    /// reconnected first if it broke.
    @discardableResult
    func inTransaction<Result>(
        committingIf commit: (Result) -> Bool = { _ in true },
        _ body: () throws(PostgresLogError) -> Result
    ) throws(PostgresLogError) -> Result {
        try ensureOpen()
        return try connection.inTransaction(committingIf: commit, body)
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
            try connection.execute("SELECT pg_advisory_xact_lock(7206400114)")
            try connection.execute(PostgresLogSchema.create)
            let rows = try connection.execute("SELECT value FROM remvvm_meta WHERE key = 'schema'")
            let found = rows.rows.first?.first ?? nil
            guard found == String(PostgresLogSchema.version) else {
                throw PostgresLogError(
                    code: .incompatibleSchema,
                    message: "the PostgreSQL log has schema version \(found ?? "none"), this build uses \(PostgresLogSchema.version): refusing to start (use a build for that schema, or another database)"
                )
            }
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

    static func number(_ text: String?, _ what: String) throws(PostgresLogError) -> UInt64 {
        guard let text, let value = UInt64(text) else {
            throw PostgresLogError(code: .corrupt, message: "the PostgreSQL log has an unreadable \(what): \(text ?? "NULL")")
        }
        return value
    }
}
