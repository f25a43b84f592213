import Journal

extension PostgresLog {
    /// The append of groups without `If-Match`, each with actions, as one call of
    /// ``PostgresLogSchema/appendFunction`` that is its own transaction (one round trip): the
    /// heads' row locks are taken and released inside the server, without waiting for this client
    /// in between (on a busy machine, each round trip under a lock also waits for this thread to
    /// be scheduled). Answers that name their group's last version are completed in SQL. A key
    /// the log already holds in its store, on a row or kept without actions, fails the whole call
    /// with a unique violation (`23505`): nothing is stored then. Groups of a store without a head
    /// row, or with one of another incarnation than theirs, are not stored (``missing(_:)``).
    func appendWithoutRoundTripsUnderTheLock(_ groups: [StoreLogGroup]) throws(PostgresLogError) -> [LogGroupOutcome] {
        var columns = AppendColumns()
        // Per store, in the order of first appearance: how many rows, the newest action's time,
        // the incarnation stated (the first group's: every group of a store comes from its view).
        var stores: [StoreID] = []
        var counts: [StoreID: UInt64] = [:]
        var lastTimes: [StoreID: Int64] = [:]
        var incarnations: [StoreID: String] = [:]
        var ranges: [(store: StoreID, ordinals: ClosedRange<UInt64>)] = []
        for item in groups {
            let group = item.group
            if counts[item.store] == nil {
                stores.append(item.store)
                incarnations[item.store] = item.incarnation
            }
            let before = counts[item.store] ?? 0
            ranges.append((item.store, before + 1...before + UInt64(group.actions.count)))
            counts[item.store] = before + UInt64(group.actions.count)
            for (index, action) in group.actions.enumerated() {
                let answer = index == group.actions.count - 1 ? group.answer : nil
                columns.add(store: item.store, ordinal: before + UInt64(index) + 1, action: action, answer: answer,
                            versionOffset: group.answerVersionOffset)
                lastTimes[item.store] = max(lastTimes[item.store] ?? .min, action.time)
            }
        }
        // The statement commits itself, so its failure on a connection the server is closing
        // (PostgreSQL restarted while it was idle) would leave the outcome unknown: reopen such a
        // connection first (if PostgreSQL is down, that fails as `unavailable`: nothing sent).
        if connection.serverSpokeWhileIdle { try connection.connect() }
        let rows = try connection.executeInOwnTransaction(
            Self.appendCallingTheFunction,
            [Self.arrayLiteral(stores.map(\.rawValue)), Self.arrayLiteral(stores.map { counts[$0].map(String.init) }),
             Self.arrayLiteral(stores.map { lastTimes[$0].map(String.init) }), Self.arrayLiteral(stores.map { incarnations[$0] })]
                + columns.parameters + [columns.recordsText]
        )
        let announced = PostgresLogDoorbell(payloads: [(rows.rows.first?.first ?? nil) ?? ""])
        return ranges.map { range in
            guard let head = announced.heads[range.store], let count = counts[range.store] else {
                return Self.missing(range.store)
            }
            let base = head - count
            return .appended(base + range.ordinals.lowerBound...base + range.ordinals.upperBound)
        }
    }

    /// The call of ``PostgresLogSchema/appendFunction``.
    private static let appendCallingTheFunction =
        "SELECT \(PostgresLogSchema.appendFunction)($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::int[], $12::bytea[], $13::bytea[], $14::bytea[], $15::bigint[], $16::text)"

    /// A PostgreSQL array literal of `elements` (each double-quoted with `\` and `"` escaped;
    /// nil as NULL), for an array parameter. Escaped byte by byte: PostgreSQL reads bytes, and
    /// walking the text by `Character` (grapheme clusters) was a fifth of the appender's time
    /// and missed a `"` that a combining mark follows (one cluster, not equal to `"`), which
    /// then ended the element early.
    static func arrayLiteral(_ elements: [String?]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                // Bytes of a multi-byte UTF-8 sequence are all >= 0x80: only these two are ASCII.
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The row arguments of ``PostgresLogSchema/appendFunction``, one element per action (columns
/// ``PostgresLogSchema/appendedRow``).
private struct AppendColumns {
    var stores: [String?] = [], ordinals: [String?] = [], types: [String?] = [], payloads: [String?] = []
    var times: [String?] = [], keys: [String?] = [], statuses: [String?] = [], fingerprints: [String?] = []
    var bodies: [String?] = [], suffixes: [String?] = [], answerTimes: [String?] = []
    /// The rows as a records doorbell's text (``PostgresLogDoorbell/appendRow(to:store:ordinal:type:payload:time:key:)``),
    /// until it outgrows one notification.
    var records: [UInt8] = []
    var recordsFit = true

    /// Adds one action, with the answer of its group if it is the group's last.
    mutating func add(store: StoreID, ordinal: UInt64, action: LoggedAction, answer: KeptAnswer?, versionOffset: Int?) {
        stores.append(store.rawValue)
        ordinals.append(String(ordinal))
        types.append(action.type)
        payloads.append(action.payload.isEmpty ? nil : String(decoding: action.payload, as: UTF8.self))
        times.append(String(action.time))
        keys.append(answer?.key)
        statuses.append(answer.map { String($0.status) })
        fingerprints.append(answer.map { "\\x" + Hex.encode($0.fingerprint) })
        if let answer, let offset = versionOffset, offset >= 0, offset <= answer.body.count {
            bodies.append("\\x" + Hex.encode(Array(answer.body[..<offset])))
            suffixes.append("\\x" + Hex.encode(Array(answer.body[offset...])))
        } else {
            bodies.append(answer.map { "\\x" + Hex.encode($0.body) })
            suffixes.append(nil)
        }
        answerTimes.append(answer.map { String($0.time) })
        if recordsFit {
            PostgresLogDoorbell.appendRow(
                to: &records, store: store, ordinal: ordinal, type: action.type, payload: action.payload, time: action.time,
                key: answer?.key
            )
            recordsFit = records.count < PostgresLogDoorbell.longestPayload
        }
    }

    /// The argument `$16`: the rows' text, or NULL when it does not fit in a notification.
    var recordsText: String? {
        recordsFit ? String(decoding: records, as: UTF8.self) : nil
    }

    /// The arguments `$5…$15`, as array literals.
    var parameters: [String?] {
        [stores, ordinals, types, payloads, times, keys, statuses, fingerprints, bodies, suffixes, answerTimes]
            .map(PostgresLog.arrayLiteral)
    }
}
