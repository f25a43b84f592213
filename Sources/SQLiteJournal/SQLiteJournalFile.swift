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
/// a format-1 file (read without checksums; the server upgrades it at its next start).
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
            StorageReport(format: format, integrityProblems: try database.integrityProblems())
        }
    }

    public func storedSnapshots() throws(JournalError) -> [JournalSnapshot] {
        try read { database, format throws(SQLiteError) -> [JournalSnapshot] in
            let columns = format >= 2 ? SQLiteJournalStorage.snapshotColumns : "version, state, time, NULL"
            let select = try database.prepare("SELECT \(columns) FROM snapshots ORDER BY version")
            var snapshots: [JournalSnapshot] = []
            while try select.step() {
                snapshots.append(try select.journalSnapshot(verify: format >= 2))
            }
            return snapshots
        }
    }

    public func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
        try read { database, format throws(SQLiteError) -> [JournalRecord] in
            let columns = format >= 2 ? SQLiteJournalStorage.recordColumns : "version, type, payload, time, NULL"
            let select = try database.prepare("SELECT \(columns) FROM actions WHERE version > ?1 ORDER BY version LIMIT ?2")
            try select.bind(1, Int64(clamping: version))
            try select.bind(2, Int64(max(0, limit)))
            var records: [JournalRecord] = []
            while try select.step() {
                records.append(try select.journalRecord(verify: format >= 2))
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
