public import Journal

extension PostgresLog {
    /// Appends `groups` to `store` in one transaction (``append(_:)-([StoreLogGroup])``).
    public func append(_ groups: [LogGroup], to store: StoreID = .default) throws(PostgresLogError) -> [LogGroupOutcome] {
        try append(groups.map { StoreLogGroup($0, to: store) })
    }

    /// Appends `groups`, of any stores, in one transaction, each with consecutive versions of its
    /// store in the given order. A group whose ``Journal/LogGroup/expectedHeads`` do not hold its
    /// store's head is left out (``Journal/LogGroupOutcome/headMoved(head:)``), so is one whose
    /// idempotency key its store already holds (``Journal/LogGroupOutcome/duplicateKey(_:)``), and
    /// one of a store that does not exist, or not as the incarnation the group states
    /// (``Journal/LogGroupOutcome/storeNotFound``: deleted, deleted and created again, or never
    /// created); the others are stored. A group without actions that keeps an answer (a
    /// request that appended nothing: `202`, or a `422` of its first action) keeps it in
    /// `remvvm_answers` (``Journal/LogGroupOutcome/kept``); its key is refused like any other its
    /// store holds. One outcome per group that has actions or an answer (groups with neither are
    /// ignored), in order. A group holding data PostgreSQL refuses to store is left out
    /// (``Journal/LogGroupOutcome/unstorable(_:)``), the others stored. On a throw nothing is
    /// stored, except with ``PostgresLogError/Code/commitOutcomeUnknown`` — which is also thrown
    /// when the connection broke after some groups were stored one by one (``appendEach(_:)``
    /// tells which).
    public func append(_ groups: [StoreLogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        var outcomes: [LogGroupOutcome] = []
        for result in try appendEach(groups) {
            switch result {
            case .success(let outcome):
                outcomes.append(outcome)
            case .failure(let error) where outcomes.contains(where: \.isStored):
                throw PostgresLogError(
                    code: .commitOutcomeUnknown,
                    message: "some groups of the append were stored before it failed: \(error.message)", sqlState: error.sqlState
                )
            case .failure(let error):
                throw error
            }
        }
        return outcomes
    }

    /// ``append(_:)-([StoreLogGroup])`` with one result per group that has actions or an answer,
    /// in order. The groups go in one transaction; only when PostgreSQL refuses the data of one of
    /// them (nothing stored) are they appended again one by one, each in a transaction of its own,
    /// so that only that group is refused. If the connection breaks during that, the groups
    /// committed before keep their outcomes, the group being appended fails with
    /// ``PostgresLogError/Code/commitOutcomeUnknown`` (its own `COMMIT` was on its way) or
    /// ``PostgresLogError/Code/unavailable`` (nothing of it sent), and the groups after it fail
    /// with ``PostgresLogError/Code/unavailable`` (not sent). Throws, storing nothing (except with
    /// ``PostgresLogError/Code/commitOutcomeUnknown``), when the transaction of all of them fails.
    public func appendEach(_ groups: [StoreLogGroup]) throws(PostgresLogError) -> [Result<LogGroupOutcome, PostgresLogError>] {
        try ensureOpen()
        let nonEmpty = groups.filter { !$0.group.isEmpty }
        guard !nonEmpty.isEmpty else { return [] }
        do throws(PostgresLogError) {
            return try appendTogether(nonEmpty).map { .success($0) }
        } catch where error.isDataRefusal {
            // Data PostgreSQL cannot store fails the whole statement (nothing stored): append
            // each group alone, so that only the group holding it is refused.
            guard nonEmpty.count > 1 else { return [.success(.unstorable(error.message))] }
            var results: [Result<LogGroupOutcome, PostgresLogError>] = []
            for group in nonEmpty {
                if case .failure(let earlier)? = results.last, earlier.breaksTheConnection {
                    results.append(.failure(PostgresLogError(
                        code: .unavailable, message: "not sent: the connection broke on an earlier group (\(earlier.message))"
                    )))
                    continue
                }
                do throws(PostgresLogError) {
                    results += try appendTogether([group]).map { .success($0) }
                } catch where error.isDataRefusal {
                    results.append(.success(.unstorable(error.message)))
                } catch {
                    // The groups before are committed (each in its own transaction): they keep
                    // their outcomes; a retry of them would store them twice.
                    results.append(.failure(error))
                }
            }
            return results
        }
    }

    /// The outcome of a group of a store without a head row, or with one of another incarnation
    /// than the group's.
    static func missing(_ store: StoreID) -> LogGroupOutcome {
        .storeNotFound
    }

    /// ``append(_:)-([StoreLogGroup])`` of non-empty groups in one transaction; throws for data
    /// PostgreSQL refuses.
    private func appendTogether(_ nonEmpty: [StoreLogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        if !nonEmpty.contains(where: { $0.group.expectedHeads != nil || $0.group.actions.isEmpty }), Self.statesOneIncarnationPerStore(nonEmpty) {
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
                throw PostgresLogError(code: .commitOutcomeUnknown, message: error.message)
            }
            return outcomes
        } catch {
            if error.code != .commitOutcomeUnknown, connection.isConnected {
                _ = try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    /// Whether the groups of each store state one incarnation (or none, all of them): the one-call
    /// append checks a store's incarnation once for all its groups; the checked path, each group's.
    private static func statesOneIncarnationPerStore(_ groups: [StoreLogGroup]) -> Bool {
        var stated: [StoreID: String?] = [:]
        for item in groups {
            if let first = stated[item.store], first != item.incarnation { return false }
            stated[item.store] = item.incarnation
        }
        return true
    }

    /// The checked append, inside a transaction: the heads of the stores of `groups` are locked
    /// (in the order of their ids: two such appends never wait for each other crosswise), then
    /// each group's incarnation, `If-Match` and key are checked against its store under that
    /// lock, so the checks are globally correct across replicas.
    private func appendInTransaction(_ groups: [StoreLogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        let stores = Set(groups.map(\.store)).sorted()
        let locked = try connection.execute(
            "SELECT store, version, incarnation FROM remvvm_head WHERE store = ANY($1::text[]) ORDER BY store FOR UPDATE",
            [Self.arrayLiteral(stores.map(\.rawValue))]
        )
        var heads: [StoreID: UInt64] = [:]
        var incarnations: [StoreID: String] = [:]
        for row in locked.rows {
            let store = try Self.store(row.first ?? nil)
            heads[store] = try Self.number(row.count > 1 ? row[1] : nil, "head version")
            incarnations[store] = row.count > 2 ? row[2] : nil
        }
        var keys = try existingKeys(groups.compactMap { group in group.group.answer.map { StoreKey(store: group.store, key: $0.key) } })
        var next = heads
        var outcomes: [LogGroupOutcome] = []
        var rows: [AppendedRow] = []
        for item in groups {
            let group = item.group
            guard let current = next[item.store], item.incarnation == nil || item.incarnation == incarnations[item.store] else {
                outcomes.append(Self.missing(item.store))
                continue
            }
            if let key = group.answer?.key {
                guard keys.insert(StoreKey(store: item.store, key: key)).inserted else {
                    outcomes.append(.duplicateKey(key))
                    continue
                }
            }
            if let expected = group.expectedHeads, !expected.contains(current) {
                outcomes.append(.headMoved(head: current))
                continue
            }
            if group.actions.isEmpty, let answer = group.answer {
                try keep(answer, in: item.store)
                outcomes.append(.kept)
                continue
            }
            for (index, action) in group.actions.enumerated() {
                let version = current + UInt64(index) + 1
                let answer = index == group.actions.count - 1 ? group.answer(lastVersion: version) : nil
                rows.append(AppendedRow(store: item.store, version: version, action: action, answer: answer))
            }
            outcomes.append(.appended(current + 1...current + UInt64(group.actions.count)))
            next[item.store] = current + UInt64(group.actions.count)
        }
        guard !rows.isEmpty else { return outcomes }
        let raised = stores.compactMap { store -> (store: StoreID, head: UInt64, last: Int64)? in
            guard let head = next[store], head != heads[store] else { return nil }
            let last = rows.lazy.filter { $0.store == store }.map(\.action.time).max() ?? 0
            return (store, head, last)
        }
        try connection.execute(
            """
            UPDATE remvvm_head h SET version = c.version, last_action_at = greatest(h.last_action_at, c.last)
            FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(store, version, last)
            WHERE h.store = c.store AND h.store = ANY($1::text[])
            """,
            [Self.arrayLiteral(raised.map(\.store.rawValue)), Self.arrayLiteral(raised.map { String($0.head) }),
             Self.arrayLiteral(raised.map { String($0.last) })]
        )
        try insert(rows)
        try connection.execute(
            "SELECT pg_notify('\(PostgresLogSchema.channel)', $1)",
            [PostgresLogDoorbell.payload(raised.map { ($0.store, $0.head) })]
        )
        return outcomes
    }

    /// One row the checked append inserts.
    private struct AppendedRow {
        let store: StoreID
        let version: UInt64
        let action: LoggedAction
        let answer: KeptAnswer?
    }

    /// Which of `keys` their stores already hold, on their rows or with answers kept without
    /// actions (read inside the append's transaction, after the heads' row locks).
    private func existingKeys(_ keys: [StoreKey]) throws(PostgresLogError) -> Set<StoreKey> {
        guard !keys.isEmpty else { return [] }
        let rows = try connection.execute(
            """
            SELECT l.store, l.idempotency_key FROM remvvm_log l
                JOIN unnest($1::text[], $2::text[]) k(store, key) ON l.store = k.store AND l.idempotency_key = k.key
            UNION ALL
            SELECT a.store, a.idempotency_key FROM remvvm_answers a
                JOIN unnest($1::text[], $2::text[]) k(store, key) ON a.store = k.store AND a.idempotency_key = k.key
            """,
            [Self.arrayLiteral(keys.map(\.store.rawValue)), Self.arrayLiteral(keys.map(\.key))]
        )
        var found: Set<StoreKey> = []
        for row in rows.rows {
            guard row.count == 2, let key = row[1] else { continue }
            found.insert(StoreKey(store: try Self.store(row[0]), key: key))
        }
        return found
    }

    /// Keeps the answer of a request that appended nothing (inside the append's transaction,
    /// after its key was found new under its store's head row lock).
    private func keep(_ answer: KeptAnswer, in store: StoreID) throws(PostgresLogError) {
        try connection.execute(
            "INSERT INTO remvvm_answers (store, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time) VALUES ($1, $2, $3, $4::bytea, $5::bytea, $6)",
            [store.rawValue, answer.key, String(answer.status), "\\x" + Hex.encode(answer.fingerprint), "\\x" + Hex.encode(answer.body), String(answer.time)]
        )
    }

    /// Inserts `rows`, in statements of at most 512 rows.
    private func insert(_ rows: [AppendedRow]) throws(PostgresLogError) {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 512, rows.count)]
            var placeholders: [String] = []
            var parameters: [String?] = []
            for row in chunk {
                let base = parameters.count
                placeholders.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4)::jsonb, $\(base + 5), $\(base + 6), $\(base + 7), $\(base + 8)::bytea, $\(base + 9)::bytea, $\(base + 10))")
                let answer = row.answer
                parameters += [
                    row.store.rawValue, String(row.version), row.action.type,
                    row.action.payload.isEmpty ? nil : String(decoding: row.action.payload, as: UTF8.self),
                    String(row.action.time), answer?.key, answer.map { String($0.status) },
                    answer.map { "\\x" + Hex.encode($0.fingerprint) }, answer.map { "\\x" + Hex.encode($0.body) },
                    answer.map { String($0.time) },
                ]
            }
            try connection.execute(
                "INSERT INTO remvvm_log (store, version, type, payload, time, idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time) VALUES "
                    + placeholders.joined(separator: ", "),
                parameters
            )
            start += chunk.count
        }
    }
}

extension LogGroupOutcome {
    /// Whether the group left something in the log: its actions, or its kept answer.
    var isStored: Bool {
        switch self {
        case .appended, .kept: true
        case .headMoved, .duplicateKey, .unstorable, .storeNotFound: false
        }
    }
}
