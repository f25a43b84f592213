import ConcurrencyKit
public import Journal
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A data directory's journal opened read-only, without its lock: what `remvvm-server verify`
/// checks and `backup` copies, also while a server uses it (SQLite's WAL mode lets a reader of
/// another process see the last commit without holding the writer up). Changes nothing, not even
/// a file of an older format (read as it is: format 1 without checksums, formats 1 and 2 with the
/// one store `default`; the server upgrades it at its next start).
///
/// As ``Journal/JournalContents`` it is the store `default`; ``contents(of:)`` gives any store's.
public final class SQLiteJournalFile: JournalContents {
    /// What SQLite says about the file (the records' checksums are checked by the verifier).
    public struct StorageReport: Sendable {
        /// The file's format (1: written before checksums).
        public var format: Int
        /// What `PRAGMA integrity_check` found; empty when it answered `ok`.
        public var integrityProblems: [String]
    }

    /// The journal file's path.
    public let path: String
    /// Where messages say the journal is: ``path``.
    public var location: String { path }
    /// The file's format.
    public let format: Int

    private let database: Lock<SQLiteDatabase>
    /// The store `default`'s key (format 3; nil before: one store, no key).
    private let defaultKey: Int64?

    /// Opens `directory`'s journal read-only; throws, naming the file, when there is none or it
    /// is not a journal of a format this build reads.
    public init(directory: String) throws(JournalError) {
        path = directory + "/" + SQLiteJournalStorage.fileName
        guard access(path, F_OK) == 0 else {
            throw JournalError(code: .unusable, message: "there is no journal in \(directory) (\(path) does not exist)")
        }
        do {
            let database = try SQLiteDatabase(path: path, create: false, readOnly: true)
            format = try SQLiteJournalStorage.storedFormat(database, path: path)
            guard format <= SQLiteJournalStorage.format else {
                throw JournalError(code: .newerFormat, message: "the journal \(path) has format \(format), newer than this build's \(SQLiteJournalStorage.format): use a newer remvvm-server")
            }
            if format >= 3 {
                let select = try database.prepare("SELECT key FROM stores WHERE id = 'default'")
                defaultKey = try select.step() ? select.int64(0) : -1
            } else {
                defaultKey = nil
            }
            self.database = Lock(database)
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(code: .corrupt, message: "cannot open the journal \(path): \(error)")
        }
    }

    /// The file's format and what SQLite's integrity check finds.
    public func storageReport() throws(JournalError) -> StorageReport {
        try read { database, format throws(SQLiteError) -> StorageReport in
            var problems = try database.integrityProblems()
            // The role a server records (`meta` key `role`): one no build writes stops every start.
            let role = try database.prepare("SELECT value FROM meta WHERE key = 'role'")
            if try role.step() {
                let recorded = role.text(0)
                if JournalRole(rawValue: recorded) == nil {
                    problems.append("the data directory's recorded use (meta role) is \"\(recorded)\", which no build writes: a server refuses to start on it")
                }
            }
            return StorageReport(format: format, integrityProblems: problems)
        }
    }

    /// The stores the file holds, ordered by id (`default` alone before format 3).
    public func stores() throws(JournalError) -> [StoreID] {
        guard format >= 3 else { return [.default] }
        return try read { database, _ throws(SQLiteError) -> [StoreID] in
            let select = try database.prepare("SELECT id FROM stores ORDER BY id")
            var stores: [StoreID] = []
            while try select.step() {
                let text = select.text(0)
                guard let id = try? StoreID(text) else {
                    throw SQLiteError.damaged("the table stores holds an id that is not a store id: \(text)")
                }
                stores.append(id)
            }
            return stores
        }
    }

    /// The records and snapshots of `store`, for the verifier; throws when the file has no such
    /// store.
    public func contents(of store: StoreID) throws(JournalError) -> any JournalContents {
        guard store != .default else { return self }
        guard format >= 3 else {
            throw JournalError(code: .unusable, message: "the journal \(path) (format \(format)) has only the store default")
        }
        let key = try read { database, _ throws(SQLiteError) -> Int64? in
            let select = try database.prepare("SELECT key FROM stores WHERE id = ?1")
            try select.bind(1, store.rawValue)
            return try select.step() ? select.int64(0) : nil
        }
        guard let key else {
            throw JournalError(code: .unusable, message: "the journal \(path) has no store \(store)")
        }
        return StoreContents(file: self, scope: StoreScope(id: store, key: key))
    }

    public func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try storedSnapshots(of: defaultKey.map { StoreScope(id: .default, key: $0) })
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try records(after: version, limit: limit, of: defaultKey.map { StoreScope(id: .default, key: $0) })
    }

    /// The snapshots of `scope` (nil: a file before format 3, whose rows have no store).
    fileprivate func storedSnapshots(of scope: StoreScope?) throws(JournalError) -> [JournalSnapshot] {
        try read { database, format throws(SQLiteError) -> [JournalSnapshot] in
            let columns = format >= 2 ? SQLiteJournalStorage.snapshotColumns : "version, state, time, NULL"
            let select = try database.prepare("SELECT \(columns) FROM snapshots\(scope == nil ? "" : " WHERE store = ?1") ORDER BY version")
            if let scope { try select.bind(1, scope.key) }
            var snapshots: [JournalSnapshot] = []
            while try select.step() {
                snapshots.append(try select.journalSnapshot(verify: format >= 2, in: scope?.id ?? .default))
            }
            return snapshots
        }
    }

    /// Records of `scope` (nil: a file before format 3, whose rows have no store).
    fileprivate func records(after version: UInt64, limit: Int, of scope: StoreScope?) throws(JournalError) -> [JournalRecord] {
        try read { database, format throws(SQLiteError) -> [JournalRecord] in
            let columns = format >= 2 ? SQLiteJournalStorage.recordColumns : "version, type, payload, time, NULL"
            // Format 4: the store's records in `actions` and in the log of recent records.
            let sql = if scope == nil {
                "SELECT \(columns) FROM actions WHERE version > ?2 ORDER BY version"
            } else {
                SQLiteJournalStorage.recordsQuery(columns: columns, log: format >= 4, folds: format >= 5, after: "?2")
            }
            let select = try database.prepare(sql + " LIMIT ?3")
            if let scope { try select.bind(1, scope.key) }
            try select.bind(2, Int64(clamping: version))
            try select.bind(3, Int64(max(0, limit)))
            var records: [JournalRecord] = []
            while try select.step() {
                records.append(try select.journalRecord(verify: format >= 2, in: scope?.id ?? .default))
            }
            return records
        }
    }

    /// Copies the journal to `destination` (a file that must not exist) with SQLite's online
    /// backup API: a consistent copy of the last commit, also while a server writes.
    public func backup(to destination: String) throws(JournalError) {
        try read { database, _ throws(SQLiteError) in
            try database.backup(to: destination)
        }
    }

    private func read<Result>(_ body: (SQLiteDatabase, Int) throws(SQLiteError) -> Result) throws(JournalError) -> Result {
        let format = format
        let outcome = database.withLock { database -> Swift.Result<Result, SQLiteError> in
            do throws(SQLiteError) {
                return .success(try body(database, format))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error): throw JournalError(code: .corrupt, message: "cannot read the journal \(path): \(error)")
        }
    }
}

/// One store's rows of a file opened read-only (``SQLiteJournalFile/contents(of:)``).
private struct StoreContents: JournalContents {
    let file: SQLiteJournalFile
    let scope: StoreScope

    var location: String { "\(file.path) (store \(scope.id))" }

    func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try file.storedSnapshots(of: scope)
    }

    func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try file.records(after: version, limit: limit, of: scope)
    }
}
