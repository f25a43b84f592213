import Journal

/// One store of the file: its id, and its key in the tables (never reused).
struct StoreScope: Sendable, Hashable {
    let id: StoreID
    let key: Int64
}

/// A part of a commit and the store of this file it writes to. A struct, not a pair: an array
/// of pairs is copied element by element through the runtime's generic tuple witnesses, and an
/// array of unlabelled pairs converted to labelled ones through dynamic casts (`_arrayForceCast`,
/// ~750 instructions a commit).
struct ScopedWrite {
    let scope: StoreScope
    let part: JournalWrite
}

/// What one store's rows of the file are read and written through: every operation of
/// ``Journal/JournalStorage``, for the store `scope` (the file's own conformance is the store
/// `default`'s; ``SQLiteStoreJournal`` is any store's).
extension SQLiteJournalStorage {
    /// How messages name the store's journal: the file, and the store unless it is `default`.
    func location(of scope: StoreScope) -> String {
        scope.id == .default ? path : "\(path) (store \(scope.id))"
    }

    func append(_ records: [JournalRecord], answers: [KeptAnswer], to scope: StoreScope) throws(JournalError) {
        if let refusal = try write([ScopedWrite(scope: scope, part: JournalWrite(storage: self, records: records, answers: answers))]).first ?? nil {
            throw refusal
        }
    }

    /// Stores `snapshot` of `scope` in a transaction of its own. `synced: false` (a snapshot
    /// that nothing outside this file relies on) lets the transaction end without its own sync:
    /// the write-ahead log keeps transactions in order, so the next synced commit — of any store —
    /// or the checkpoint at close makes it durable, and a power loss before that loses the whole
    /// transaction (the older snapshots it would have pruned included), never part of it: the
    /// store restarts from its older snapshot and the records after it. Stores unloaded together
    /// (a stop with thousands loaded) then cost one sync, not one each.
    func saveSnapshot(_ snapshot: JournalSnapshot, of scope: StoreScope, synced: Bool = true) throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            let transaction = { () throws(SQLiteError) in
                try writer.database.transaction { () throws(SQLiteError) in
                    try Self.insertSnapshot(snapshot, of: scope, writer)
                }
            }
            guard !synced else { return try transaction() }
            if sync == .full { snapshotsWithoutOwnSync.withLock { $0 += 1 } }
            try withRelaxedSync(writer, transaction)
        } describing: { "snapshot of version \(snapshot.version) to \(location(of: scope)) failed: \($0)" }
    }

    /// The writer's `synchronous` level now (0 off, 1 normal, 2 full): for tests.
    func writerSynchronousLevel() throws(JournalError) -> Int {
        try withWriter { writer throws(SQLiteError) -> Int in
            let pragma = try writer.database.prepare("PRAGMA synchronous")
            guard try pragma.step() else { return -1 }
            return Int(pragma.int64(0))
        } describing: { "reading the writer's synchronous level of \(path) failed: \($0)" }
    }

    /// Stores `snapshot` and keeps it and the newest usable snapshot before it, no other of the
    /// store (inside a transaction; ``pruneSnapshots(of:keeping:_:)``).
    static func insertSnapshot(_ snapshot: JournalSnapshot, of scope: StoreScope, _ writer: Writer) throws(SQLiteError) {
        writer.insertSnapshot.reset()
        try writer.insertSnapshot.bind(1, scope.key)
        try writer.insertSnapshot.bind(2, Int64(snapshot.version))
        try writer.insertSnapshot.bind(3, snapshot.state)
        try writer.insertSnapshot.bind(4, snapshot.time)
        try writer.insertSnapshot.bind(5, Int64(snapshot.checksum(in: scope.id)))
        try writer.insertSnapshot.run()
        try pruneSnapshots(of: scope, keeping: snapshot.version, writer)
    }

    func snapshot(atOrBefore version: UInt64, of scope: StoreScope) throws(JournalError) -> JournalSnapshot? {
        try read(\.selectSnapshot) { select throws(SQLiteError) -> JournalSnapshot? in
            try select.bind(1, scope.key)
            try select.bind(2, Int64(clamping: version))
            // The newest that matches its checksum: a damaged one is passed over for an older one.
            while try select.step() {
                let snapshot = try select.journalSnapshot(verify: true, in: scope.id)
                if snapshot.isIntact { return snapshot }
            }
            return nil
        }
    }

    func answer(forKey key: String, of scope: StoreScope) throws(JournalError) -> KeptAnswer? {
        try read(\.selectAnswer) { select throws(SQLiteError) -> KeptAnswer? in
            try select.bind(1, scope.key)
            try select.bind(2, key)
            guard try select.step() else { return nil }
            return KeptAnswer(
                key: select.text(0), fingerprint: select.blob(1), status: Int(select.int64(2)),
                body: select.blob(3), time: select.int64(4)
            )
        }
    }

    func removeAnswers(keptBefore time: Int64, of scope: StoreScope) throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            writer.removeAnswers.reset()
            try writer.removeAnswers.bind(1, scope.key)
            try writer.removeAnswers.bind(2, time)
            try writer.removeAnswers.run()
        } describing: { "removing expired idempotency answers from \(location(of: scope)) failed: \($0)" }
    }

    func records(after version: UInt64, limit: Int, of scope: StoreScope) throws(JournalError) -> [JournalRecord] {
        let statement: KeyPath<Reader, SQLiteStatement> = mayHaveLoggedRecords(scope) ? \.selectActionsAndLog : \.selectActions
        return try read(statement) { select throws(SQLiteError) -> [JournalRecord] in
            try select.bind(1, scope.key)
            try select.bind(2, Int64(clamping: version))
            try select.bind(3, Int64(max(0, limit)))
            var records: [JournalRecord] = []
            while try select.step() {
                records.append(try select.journalRecord(verify: true, in: scope.id))
            }
            return records
        }
    }

    func newestVersion(recordedBefore time: Int64, of scope: StoreScope) throws(JournalError) -> UInt64? {
        let tables = mayHaveLoggedRecords(scope) ? ["actions", "commit_log"] : ["actions"]
        return try withReader { reader throws(SQLiteError) -> UInt64? in
            // Times follow versions (one clock, one writer): the records before `time` are the
            // ones before the first at or after it, found by a scan in version order that stops
            // there (it reads only the records old enough to be removed). A store's records in the
            // log are newer than those in `actions`: the log is looked at only when none of
            // `actions` is recent enough.
            var bound = Int64.max
            for table in tables where bound == Int64.max {
                let first = try reader.database.prepare("SELECT version FROM \(table) WHERE store = ?1 AND time >= ?2 ORDER BY version LIMIT 1")
                try first.bind(1, scope.key)
                try first.bind(2, time)
                if try first.step() { bound = first.int64(0) }
            }
            let newest = try reader.database.prepare(
                "SELECT MAX(version) FROM (\(tables.map { "SELECT MAX(version) AS version FROM \($0) WHERE store = ?1 AND version < ?2" }.joined(separator: " UNION ALL ")))"
            )
            try newest.bind(1, scope.key)
            try newest.bind(2, bound)
            guard try newest.step(), !newest.isNull(0) else { return nil }
            return try newest.version(0)
        }
    }

    func removeRecords(through version: UInt64, of scope: StoreScope) throws(JournalError) {
        try withWriter { writer throws(SQLiteError) in
            let limit = try Self.retentionLimit(version, of: scope, writer)
            try writer.database.transaction { () throws(SQLiteError) in
                // The head is read from the newest record: kept in the row before it may go.
                try foldHead(of: scope, writer)
                try removeRecords(through: limit, of: scope, writer)
            }
        } describing: { "removing journal records through \(version) from \(location(of: scope)) failed: \($0)" }
    }

    /// Removes the store's records through `version` from both tables (inside a transaction); from
    /// the log only when it holds some of them (``LogState/oldest``: its deletion is a pass over
    /// the log).
    func removeRecords(through version: UInt64, of scope: StoreScope, _ writer: Writer) throws(SQLiteError) {
        let inLog = log.withLock { state in state.unreadable || state.oldest[scope.key].map { $0 <= version } ?? false }
        for remove in inLog ? [writer.removeActions, writer.removeLogged] : [writer.removeActions] {
            remove.reset()
            defer { remove.reset() }
            try remove.bind(1, scope.key)
            try remove.bind(2, Int64(clamping: version))
            try remove.run()
        }
    }
}
