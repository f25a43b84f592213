/// A place in the order in which a fold moves records: by store key, then version.
struct FoldPosition: Equatable {
    var store: Int64
    var version: Int64

    /// Before every record.
    static let start = FoldPosition(store: .min, version: .min)
    /// After every record.
    static let end = FoldPosition(store: .max, version: .max)
}

/// A fold of the log moving in pieces (format 5): the writer's plan and how far it has come.
///
/// When the log reaches ``SQLiteJournalStorage/foldThreshold`` holding records of
/// ``SQLiteJournalStorage/foldPiecesFromStores`` stores or more, the writer notes the log's last
/// row (`through`) and cuts the records up to it, in (store, version) order, into pieces of about
/// ``SQLiteJournalStorage/foldPiece`` records. Before every other commit it copies one piece into
/// `actions` and records the piece's end in `fold_progress`, in one transaction; the last piece
/// also deletes every row up to `through` from the log (one range of its rowids) and the progress
/// row. Until then the rows already copied stay in the log as well, and every read of the log
/// leaves them out (``SQLiteJournalStorage/movedByFoldInPieces``, read in the reader's own
/// transaction); a start that finds a progress row finishes the fold first. With fewer stores
/// the fold is one piece, as before format 5: a piece reads the whole log to find its records
/// (the log has no index), which costs more than the pause it saves when a fold is quick (one
/// store's records append to the end of `actions`).
struct FoldInProgress {
    /// The log's last row (`seq`) when the fold began: the rows it moves.
    let through: Int64
    /// The last record moved (``FoldPosition/start`` before the first piece).
    var moved: FoldPosition = .start
    /// The ends of the pieces still to move, in order; the last is ``FoldPosition/end``.
    var pieceEnds: [FoldPosition]
    /// The log's rows when the fold began, all of them up to `through` (an upper bound, as
    /// ``LogState/rows`` is).
    let rowsAtStart: Int
    /// Each store's newest logged version when the fold began: what its rows up to `through` end at.
    let newestAtStart: [Int64: UInt64]
    /// The stores that committed records to the log since the fold began: after the last piece
    /// only they can still have rows there.
    var stores: Set<Int64> = []
    /// After a piece failed: the log's size at which the next piece is tried (nil: before the
    /// next commit).
    var retryAt: Int?
    /// A piece ran before the last commit: the next commit goes without one, so that the requests
    /// that arrived during a piece wait for one piece at most.
    var restNext = false
}

extension SQLiteJournalStorage {
    /// The default of ``foldPiece``: records a piece of a fold moves (`docs/benchmarks.md`,
    /// "2026-11-30 (16:30–17:15 UTC)").
    public static let defaultFoldPiece = 4_096
    /// The default of ``foldPiecesFromStores``.
    public static let defaultFoldPiecesFromStores = 64

    /// The rows of the log that a fold in pieces has already copied into `actions`: an SQL
    /// condition on `commit_log`'s columns, true for none when no fold is under way. Its first,
    /// uncorrelated `EXISTS` is evaluated once per statement: between folds a row of the log
    /// costs no look at `fold_progress`.
    static let movedByFoldInPieces = """
        (EXISTS (SELECT 1 FROM fold_progress) AND EXISTS (SELECT 1 FROM fold_progress f WHERE commit_log.seq <= f.through
            AND (commit_log.store, commit_log.version) <= (f.store, f.version)))
        """

    /// Moves the next piece of the fold under way, or starts a fold (and moves its first piece)
    /// when the log has reached ``foldThreshold``. Called on the writer before a commit's
    /// transaction (the committer's thread owns the writer, as for the checkpoint's catch-up). A
    /// piece that fails is tried again after another ``foldThreshold`` records: the records stay
    /// in the log, where every read finds them.
    func foldLogIfDue(_ writer: Writer) {
        enum Step { case none, start, piece(FoldInProgress) }
        let step = log.withLock { state -> Step in
            guard let folding = state.folding else { return state.rows >= state.nextFold ? .start : .none }
            if folding.restNext {
                state.folding?.restNext = false
                return .none
            }
            return folding.retryAt.map { state.rows >= $0 } ?? true ? .piece(folding) : .none
        }
        switch step {
        case .none:
            return
        case .start:
            do throws(SQLiteError) {
                guard let folding = try planFold(writer) else { return }
                // One piece: the whole log, as before format 5 (its `DELETE` empties the table at
                // once, where a range of rowids is deleted row by row).
                guard folding.pieceEnds.count > 1 else { return try foldLog(writer) }
                log.withLock { $0.folding = folding }
                try moveNextPiece(of: folding, writer)
            } catch {
                log.withLock { state in
                    if state.folding != nil {
                        state.folding?.retryAt = state.rows + foldThreshold
                    } else {
                        state.nextFold = state.rows + foldThreshold
                    }
                }
            }
        case .piece(let folding):
            do throws(SQLiteError) {
                try moveNextPiece(of: folding, writer)
            } catch {
                log.withLock { $0.folding?.retryAt = $0.rows + foldThreshold }
            }
        }
    }

    /// The plan of a fold of every row of the log now: the piece ends from each logged store's
    /// oldest and newest version (its rows in the log are the versions between them, so no pass
    /// over the log is needed); one piece below ``foldPiecesFromStores`` stores; nil when the
    /// log is empty.
    private func planFold(_ writer: Writer) throws(SQLiteError) -> FoldInProgress? {
        let last = try writer.database.prepare("SELECT MAX(seq) FROM commit_log")
        guard try last.step(), !last.isNull(0) else {
            log.withLock { $0 = LogState(nextFold: foldThreshold) }
            return nil
        }
        let through = last.int64(0)
        return log.withLock { state -> FoldInProgress in
            var ends: [FoldPosition] = []
            var inPiece = 0
            for store in state.stores.count >= foldPiecesFromStores ? state.stores.sorted() : [] {
                guard let newest = state.newest[store]?.version else { continue }
                var version = state.oldest[store] ?? newest
                while version <= newest {
                    let take = min(UInt64(foldPiece - inPiece), newest - version + 1)
                    version += take
                    inPiece += Int(take)
                    if inPiece >= foldPiece {
                        ends.append(FoldPosition(store: store, version: Int64(clamping: version - 1)))
                        inPiece = 0
                    }
                }
            }
            // The last piece runs to the end: it also takes what the plan could not see (a store
            // whose versions were not known).
            if inPiece == 0, !ends.isEmpty {
                ends[ends.count - 1] = .end
            } else {
                ends.append(.end)
            }
            return FoldInProgress(
                through: through, pieceEnds: ends, rowsAtStart: state.rows,
                newestAtStart: state.newest.mapValues(\.version)
            )
        }
    }

    /// Copies the next piece of `folding` into `actions`, in one transaction with its progress
    /// row; the last piece also deletes the fold's rows from the log. Not synced on its own
    /// (``withRelaxedSync(_:_:)``): it moves records that are already durable.
    private func moveNextPiece(of folding: FoldInProgress, _ writer: Writer) throws(SQLiteError) {
        guard let end = folding.pieceEnds.first else { return }
        let isLast = folding.pieceEnds.count == 1
        try withRelaxedSync(writer) { () throws(SQLiteError) in
            try writer.database.transaction { () throws(SQLiteError) in
                // `store BETWEEN` is implied by the row values' bounds; checked first, it spares most
                // rows of the log the row values' comparisons: 3.6 → 2.9 ms a piece's selection of
                // 4,096 rows of 1,000 stores out of 32,768 (`docs/benchmarks.md`, "2026-11-30 (19:10").
                let copy = try writer.database.prepare("""
                    INSERT OR FAIL INTO actions(store, version, type, payload, time, checksum)
                        SELECT store, version, type, payload, time, checksum FROM commit_log
                        WHERE seq <= ?1 AND store BETWEEN ?2 AND ?4
                            AND (store, version) > (?2, ?3) AND (store, version) <= (?4, ?5)
                        ORDER BY store, version
                    """)
                try copy.bind(1, folding.through)
                try copy.bind(2, folding.moved.store)
                try copy.bind(3, folding.moved.version)
                try copy.bind(4, end.store)
                try copy.bind(5, end.version)
                try copy.run()
                if isLast {
                    let remove = try writer.database.prepare("DELETE FROM commit_log WHERE seq <= ?1")
                    try remove.bind(1, folding.through)
                    try remove.run()
                    try writer.database.execute("DELETE FROM fold_progress")
                } else {
                    let progress = try writer.database.prepare(
                        "INSERT OR REPLACE INTO fold_progress(id, through, store, version) VALUES (1, ?1, ?2, ?3)"
                    )
                    try progress.bind(1, folding.through)
                    try progress.bind(2, end.store)
                    try progress.bind(3, end.version)
                    try progress.run()
                }
            }
        }
        log.withLock { state in
            guard isLast else {
                state.folding?.moved = end
                state.folding?.pieceEnds.removeFirst()
                state.folding?.retryAt = nil
                state.folding?.restNext = true
                return
            }
            finishFold(folding, in: &state)
        }
    }

    /// What the writer knows of the log once a fold's last piece has committed: only the stores
    /// that committed since the fold began still have rows there, from the version after their
    /// newest at its start.
    private func finishFold(_ folding: FoldInProgress, in state: inout LogState) {
        let stores = state.folding?.stores ?? []
        state.rows = max(0, state.rows - folding.rowsAtStart)
        for store in state.stores where !stores.contains(store) {
            state.newest[store] = nil
            state.oldest[store] = nil
        }
        state.stores = stores
        for store in stores {
            guard let newestAtStart = folding.newestAtStart[store] else { continue }
            state.oldest[store] = max(state.oldest[store] ?? 0, newestAtStart + 1)
        }
        state.folding = nil
        state.nextFold = foldThreshold
    }

    /// Finishes a fold in pieces that a crash cut short (a progress row is left): at the start,
    /// before the log's state is read, in one transaction. Returns whether there was one.
    static func finishInterruptedFold(in database: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let progress = try database.prepare("SELECT EXISTS(SELECT 1 FROM fold_progress)")
        guard try progress.step(), progress.int64(0) == 1 else { return false }
        try database.transaction { () throws(SQLiteError) in
            try foldLog(in: database)
        }
        return true
    }
}
