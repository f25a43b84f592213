public import Journal

extension SQLiteJournalStorage: JournalContents {
    /// The store `default`'s snapshots, oldest first, each checked against its checksum.
    public func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try storedSnapshots(of: defaultStore)
    }

    func storedSnapshots(of scope: StoreScope) throws(JournalError) -> [JournalSnapshot] {
        try withReader { reader throws(SQLiteError) -> [JournalSnapshot] in
            try Self.snapshots(of: scope, in: reader.database).reversed()
        }
    }

    /// Carries out `plan` for `store` in one transaction (`remvvm-server repair`): moves the log of
    /// recent records into `actions` (``foldLog(_:)``), removes the
    /// store's records after its last good version and those through
    /// ``Journal/JournalRepairPlan/removeRecordsThrough`` (with the snapshots before that version),
    /// every snapshot after the last good version or not matching its checksum, and the
    /// idempotency answers kept after the last kept record (their actions are gone: a retry
    /// applies them again); then stores the plan's snapshot and sets the store's head to the last
    /// good version. Other stores are left as they are.
    public func repair(_ plan: JournalRepairPlan, store: StoreID = .default) throws(JournalError) {
        guard let view = try storage(for: store) else {
            throw JournalError(code: .unusable, message: "there is no store \(store) in \(path) to repair")
        }
        let scope = view.scope
        try withWriter { writer throws(SQLiteError) in
            try writer.database.transaction { () throws(SQLiteError) in
                // Every record in `actions` first (each store's, in the same transaction): what
                // follows removes and reads records there only.
                try Self.foldLog(in: writer.database)
                try Self.repair(plan, of: scope, writer)
            }
            log.withLock { $0 = LogState(nextFold: foldThreshold) }
        } describing: { "repairing \(location(of: scope)) failed, nothing was changed: \($0)" }
    }

    private static func repair(_ plan: JournalRepairPlan, of scope: StoreScope, _ writer: Writer) throws(SQLiteError) {
        let database = writer.database
        let damaged = try snapshots(of: scope, in: database).filter { !$0.isIntact || $0.version > plan.lastGoodVersion }
        let removeSnapshot = try database.prepare("DELETE FROM snapshots WHERE store = ?1 AND version = ?2")
        for snapshot in damaged {
            removeSnapshot.reset()
            try removeSnapshot.bind(1, scope.key)
            try removeSnapshot.bind(2, Int64(snapshot.version))
            try removeSnapshot.run()
        }
        let lastTime = try database.prepare("SELECT time FROM actions WHERE store = ?1 AND version = ?2")
        try lastTime.bind(1, scope.key)
        try lastTime.bind(2, Int64(plan.lastGoodVersion))
        let keptUntil = try lastTime.step() ? lastTime.int64(0) : plan.snapshot.time
        let removeAfter = try database.prepare("DELETE FROM actions WHERE store = ?1 AND version > ?2")
        try removeAfter.bind(1, scope.key)
        try removeAfter.bind(2, Int64(plan.lastGoodVersion))
        try removeAfter.run()
        if let through = plan.removeRecordsThrough {
            writer.removeActions.reset()
            try writer.removeActions.bind(1, scope.key)
            try writer.removeActions.bind(2, Int64(through))
            try writer.removeActions.run()
            // No record follows them any more: they cannot be started from.
            let removeOlder = try database.prepare("DELETE FROM snapshots WHERE store = ?1 AND version < ?2")
            try removeOlder.bind(1, scope.key)
            try removeOlder.bind(2, Int64(through))
            try removeOlder.run()
        }
        try removeAnswers(after: plan.lastGoodVersion, keptUntil: keptUntil, of: scope, database)
        try insertSnapshot(plan.snapshot, of: scope, writer)
        let head = try database.prepare("""
            UPDATE stores SET version = ?2,
                last_action_at = COALESCE((SELECT time FROM actions WHERE store = ?1 AND version = ?2), last_action_at) WHERE key = ?1
            """)
        try head.bind(1, scope.key)
        try head.bind(2, Int64(plan.lastGoodVersion))
        try head.run()
    }

    /// Removes the kept answers whose actions the repair removed: an answer `{"version":N}` by its
    /// version (N after `lastGood`: its actions are gone, a retry must apply them again; N at or
    /// before it: they stand, a retry must get the answer), any other by its time (kept after
    /// `keptUntil`, the last kept record's). A time alone misjudges an answer stamped in another
    /// millisecond than its last record: the answer is made after the reduce.
    private static func removeAnswers(
        after lastGood: UInt64, keptUntil: Int64, of scope: StoreScope, _ database: SQLiteDatabase
    ) throws(SQLiteError) {
        let select = try database.prepare("SELECT key, status, body, time FROM answers WHERE store = ?1")
        try select.bind(1, scope.key)
        var removed: [String] = []
        while try select.step() {
            let version = select.int64(1) == 200 ? answeredVersion(select.blob(2)) : nil
            let isGone = version.map { $0 > lastGood } ?? (select.int64(3) > keptUntil)
            if isGone { removed.append(select.text(0)) }
        }
        let remove = try database.prepare("DELETE FROM answers WHERE store = ?1 AND key = ?2")
        for key in removed {
            remove.reset()
            try remove.bind(1, scope.key)
            try remove.bind(2, key)
            try remove.run()
        }
    }

    /// N of an answer body `{"version":N}` (as the server writes it), else nil.
    static func answeredVersion(_ body: [UInt8]) -> UInt64? {
        let prefix = Array(#"{"version":"#.utf8)
        guard body.count > prefix.count + 1, body.starts(with: prefix), body.last == UInt8(ascii: "}") else { return nil }
        let digits = body[prefix.count..<(body.count - 1)]
        guard digits.count <= 20, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    /// Copies the journal to `destination` (a file that must not exist) with SQLite's online
    /// backup API, as `remvvm-server repair` does before it changes anything.
    public func backup(to destination: String) throws(JournalError) {
        try withReader { reader throws(SQLiteError) in
            try reader.database.backup(to: destination)
        }
    }
}
