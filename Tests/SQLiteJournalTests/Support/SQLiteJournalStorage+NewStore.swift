import Journal
import SQLiteJournal
import Testing

extension SQLiteJournalStorage {
    /// Creates the store `name` (created at time 1, room for 100 stores) and returns its journal
    /// storage.
    func newStore(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SQLiteStoreJournal {
        let id = try StoreID(name)
        _ = try create(id, limit: 100, at: 1)
        return try #require(try storage(for: id), sourceLocation: sourceLocation)
    }
}
