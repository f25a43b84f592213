public import Journal

/// The transactions of a file's shared group commit (``SQLiteJournalStorage/commits``): the
/// parts of every store in one SQLite transaction.
struct SQLiteStoreTransactions: JournalTransactions {
    /// The file; it owns the committer that owns this, so it outlives it.
    unowned let database: SQLiteJournalStorage

    func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?] {
        try database.write(parts)
    }
}

extension SQLiteJournalStorage: JournalTransactions {
    /// Writes the parts of stores of this file (the file itself for `default`, or views from
    /// ``storage(for:)``) in one transaction, appending their records to the log of recent records
    /// (`commit_log`, folded into `actions` in batches: ``foldLogIfDue(_:)``); the `stores` rows
    /// are not written (a store's head is derived from its records, ``storeQuery(_:logged:then:)``). A part of a storage that is not of this file,
    /// of a closed view, or of a store deleted meanwhile is refused alone
    /// (``Journal/JournalErrorCode/closed``).
    public func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?] {
        // Every part is a store of this file, but for a closed view or a stray storage: the
        // refused ones aside (rare), the parts' own results are the answer, without arrays to
        // map them back (each an allocation per commit).
        var scoped: [ScopedWrite] = []
        scoped.reserveCapacity(parts.count)
        var refused: [(index: Int, error: JournalError)] = []
        for index in parts.indices {
            switch scope(of: parts[index].storage) {
            case .success(let scope):
                scoped.append(ScopedWrite(scope: scope, part: parts[index]))
            case .failure(let error):
                refused.append((index, error))
            }
        }
        let results = try write(scoped)
        guard !refused.isEmpty else { return results }
        var refusals: [JournalError?] = []
        refusals.reserveCapacity(parts.count)
        var stored = results.makeIterator()
        var nextRefused = 0
        for index in parts.indices {
            if nextRefused < refused.count, refused[nextRefused].index == index {
                refusals.append(refused[nextRefused].error)
                nextRefused += 1
            } else {
                refusals.append(stored.next() ?? nil)
            }
        }
        return refusals
    }

    /// The store `storage` is of in this file, or why it cannot be written here.
    private func scope(of storage: any JournalStorage) -> Result<StoreScope, JournalError> {
        // A view first, told by its exact type: the parts of a shared commit are views (the file
        // itself commits the store `default` through a committer of its own), and a cast that
        // fails first cost every part about 1,000 instructions.
        if let view = Self.view(storage), view.database === self {
            guard !view.isClosed else {
                return .failure(JournalError(code: .closed, message: "the journal of store \(view.scope.id) in \(path) is closed"))
            }
            return .success(view.scope)
        }
        if let file = storage as? SQLiteJournalStorage, file === self {
            return .success(defaultStore)
        }
        return .failure(JournalError(code: .closed, message: "\(storage.location) is not a store of the journal \(path)"))
    }

    /// `storage` when it is a view (``SQLiteStoreJournal``), told by its exact type, then cast
    /// as the opened type: from the existential, `as?` unwrapped it first (~250 instructions a part).
    private static func view<Storage: JournalStorage>(_ storage: Storage) -> SQLiteStoreJournal? {
        guard Storage.self == SQLiteStoreJournal.self else { return nil }
        return storage as? SQLiteStoreJournal
    }

    /// Writes `parts` in one transaction; the refusal of each part, in order (nil: stored, or
    /// nothing to store).
    func write(_ parts: [ScopedWrite]) throws(JournalError) -> [JournalError?] {
        // Filled by appending (`reserveCapacity` and `append` are specialized here): through
        // `init(repeating:count:)` or `map`, the standard library made each array in unspecialized
        // code that looked up its storage class's metadata at run time (~500 instructions each).
        var refusals: [JournalError?] = []
        refusals.reserveCapacity(parts.count)
        for _ in parts.indices {
            refusals.append(nil)
        }
        guard parts.contains(where: { !$0.part.records.isEmpty || !$0.part.answers.isEmpty }) else { return refusals }
        let records = parts.reduce(0) { $0 + $1.part.records.count }
        try withWriter { writer throws(SQLiteError) in
            // A journal deleted or replaced under the server (its data directory removed, moved
            // or restored over) would take commits nobody reads again: acknowledged, then lost.
            if try writer.database.fileHasMoved() {
                throw SQLiteError.fileMoved
            }
            if let checkpointer, checkpointer.takeCatchUp() {
                finishCheckpoint(writer.database, checkpointer)
            }
            foldLogIfDue(writer)
            // Before the commit: a reader that finds a store absent from the set then knows its
            // committed records are all in `actions` (``LogState/stores``).
            let newest = log.withLock { state in
                var newest: [UInt64?] = []
                newest.reserveCapacity(parts.count)
                for scoped in parts {
                    guard !scoped.part.records.isEmpty else {
                        newest.append(nil)
                        continue
                    }
                    let key = scoped.scope.key
                    state.stores.insert(key)
                    state.folding?.stores.insert(key)
                    newest.append(state.newest[key]?.version)
                }
                return newest
            }
            var stored = [Bool](repeating: false, count: parts.count)
            let deleted = deletedStoreKeys.withLock { $0 }
            try writer.database.transaction { () throws(SQLiteError) in
                for index in parts.indices {
                    let scope = parts[index].scope, part = parts[index].part
                    guard !part.records.isEmpty || !part.answers.isEmpty else { continue }
                    // The store still exists: the store `default` always does; another may have
                    // been deleted since its view was made.
                    guard deleted.isEmpty || !deleted.contains(scope.key) else {
                        refusals[index] = JournalError(
                            code: .closed,
                            message: "the store \(scope.id) was deleted from \(path): \(Self.describe(part.records, part.answers)) not journaled"
                        )
                        continue
                    }
                    try Self.checkVersions(part.records, of: scope, newest: newest[index], writer)
                    try Self.insert(part, of: scope, writer)
                    stored[index] = true
                }
            }
            log.withLock { state in
                state.rows += records
                for index in parts.indices where stored[index] {
                    let scope = parts[index].scope, part = parts[index].part
                    guard let first = part.records.first, let last = part.records.last else { continue }
                    state.newest[scope.key] = (last.version, last.time)
                    if state.oldest[scope.key] == nil { state.oldest[scope.key] = first.version }
                }
            }
        } describing: { "journal commit of \(Self.describe(parts)) to \(path) failed: \($0)" }
        let due = sinceCheckpoint.withLock { counts -> Bool in
            counts.commits += 1
            counts.records += records
            guard counts.commits >= Self.checkpointEveryCommits || counts.records >= Self.checkpointEveryRecords else { return false }
            counts = (0, 0)
            return true
        }
        if due { checkpointer?.request() }
        return refusals
    }

    private static func insert(_ part: JournalWrite, of scope: StoreScope, _ writer: Writer) throws(SQLiteError) {
        for record in part.records {
            writer.insertAction.reset()
            try writer.insertAction.bind(1, scope.key)
            try writer.insertAction.bind(2, Int64(record.version))
            try writer.insertAction.bind(3, record.type)
            try writer.insertAction.bind(4, record.payload)
            try writer.insertAction.bind(5, record.time)
            try writer.insertAction.bind(6, Int64(record.checksum(in: scope.id)))
            try writer.insertAction.run()
        }
        for answer in part.answers {
            writer.insertAnswer.reset()
            try writer.insertAnswer.bind(1, scope.key)
            try writer.insertAnswer.bind(2, answer.key)
            try writer.insertAnswer.bind(3, answer.fingerprint)
            try writer.insertAnswer.bind(4, Int64(answer.status))
            try writer.insertAnswer.bind(5, answer.body)
            try writer.insertAnswer.bind(6, answer.time)
            try writer.insertAnswer.run()
        }
    }

    /// `versions 3...5`, `versions 3...5 of store room-1 and 2 more stores' records`.
    private static func describe(_ parts: [ScopedWrite]) -> String {
        guard let first = parts.first else { return "nothing" }
        let store = first.scope.id == .default ? "" : " of store \(first.scope.id)"
        let more = parts.count > 1 ? " and \(parts.count - 1) more store(s)' records" : ""
        return describe(first.part.records, first.part.answers) + store + more
    }

    private static func describe(_ records: [JournalRecord], _ answers: [KeptAnswer]) -> String {
        guard let first = records.first?.version, let last = records.last?.version else {
            return "\(answers.count) kept answer(s)"
        }
        return "versions \(first)...\(last)"
    }
}
