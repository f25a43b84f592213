import Journal
import Testing

/// `MemoryJournalStorage.removeRecords(through:)` follows the SQLite storage's rule (docs/journal.md,
/// "Restart, snapshots and retention"): nothing while a store has one snapshot, then never past the
/// older of the two kept.
@Suite struct MemoryJournalRetentionTests {
    @Test func retentionWaitsForASecondSnapshotThenStopsAtTheOlder() throws {
        let storage = MemoryJournalStorage()
        try storage.append((1...10).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        try storage.saveSnapshot(JournalSnapshot(version: 5, state: Array("{}".utf8), time: 0))

        try storage.removeRecords(through: 8)
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == Array(1...10), "one snapshot: every record stays")

        try storage.saveSnapshot(JournalSnapshot(version: 8, state: Array("{}".utf8), time: 0))
        try storage.removeRecords(through: 9)
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == Array(6...10), "never past the older snapshot, 5")

        try storage.removeRecords(through: 3)
        #expect(try storage.records(after: 0, limit: 100).map(\.version) == Array(6...10))
    }
}
