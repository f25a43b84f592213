import Foundation
@testable import SQLiteJournal
import Testing

/// Where the records of a closed journal are when a test changes them behind its back: in
/// `actions` (a clean close folds the log of recent records there) or still in `commit_log` (as a
/// crash leaves them). Damage tests run for both, so that every check reads both tables.
enum RecordTable: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case actions
    case log = "commit_log"

    var testDescription: String { rawValue }

    /// `sql`, written against `actions`, aimed at this table instead.
    func aim(_ sql: String) -> String {
        self == .actions ? sql : sql.replacingOccurrences(of: "actions", with: rawValue)
    }

    /// Closes `storage`, leaving its records in this table.
    func close(_ storage: SQLiteJournalStorage) {
        storage.foldsLogOnClose.withLock { $0 = self == .actions }
        storage.close()
    }
}
