import HTTPTestSupport
import Journal
import SQLiteJournal
import Testing

/// The damage the journal in `directory` reports when it recovers: a ``JournalError`` of code
/// `corrupt`; fails the test when it recovers, or fails for another reason.
func recoveryDamage(
    in directory: TemporaryDirectory, sync: JournalSync = .off, sourceLocation: SourceLocation = #_sourceLocation
) throws -> JournalError {
    let storage = try SQLiteJournalStorage(directory: directory.path, sync: sync)
    defer { storage.close() }
    let error = try #require(throws: JournalError.self, sourceLocation: sourceLocation) { try storage.recover() }
    #expect(error.code == .corrupt, "\(error.message)", sourceLocation: sourceLocation)
    return error
}
