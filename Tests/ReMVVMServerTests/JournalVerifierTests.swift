import ExampleApp
import HTTPTestSupport
import Journal
import ReMVVMServer
@testable import SQLiteJournal
import Testing

/// What ``JournalVerifier`` finds by replaying through the example's reducers, and the repair
/// it plans (`docs/journal.md`, "Verify and repair").
@Suite struct JournalVerifierTests {
    private func verify(_ storage: SQLiteJournalStorage) throws -> JournalVerification {
        try JournalVerifier(store: try ExampleApp.store(), actions: ExampleApp.actions).verify(storage)
    }

    private func state(_ counter: Int) -> [UInt8] {
        Array(#"{"counter":\#(counter),"user":null}"#.utf8)
    }

    /// A journal of `records` increases and snapshots of `snapshots` (their counter as given).
    private func journal(records: UInt64, snapshots: [(version: UInt64, counter: Int)]) throws -> (TemporaryDirectory, SQLiteJournalStorage) {
        let directory = try TemporaryDirectory(prefix: "remvvm-verifier")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        try storage.append((1...records).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 1) })
        for snapshot in snapshots {
            try storage.saveSnapshot(JournalSnapshot(version: snapshot.version, state: state(snapshot.counter), time: 1))
        }
        return (directory, storage)
    }

    @Test func aSoundJournalHasNoProblemsAndNoRepair() throws {
        let (directory, storage) = try journal(records: 20, snapshots: [(10, 10), (20, 20)])
        defer { withExtendedLifetime(directory) { storage.close() } }
        let report = try verify(storage)
        #expect(report.isSound && report.repairPlan == nil, "\(report.lines)")
        #expect(report.lastGoodVersion == 20 && report.notes.count == 2)
    }

    /// A snapshot whose checksum matches but whose state no replay gives (written by a build with
    /// other reducers, or damaged before the format-1 upgrade gave it a checksum).
    @Test func aSnapshotThatReplayDoesNotReachIsReportedAndTheHistoryBeforeItIsDropped() throws {
        let (directory, storage) = try journal(records: 20, snapshots: [(10, 10), (20, 99)])
        defer { withExtendedLifetime(directory) { storage.close() } }
        let report = try verify(storage)
        #expect(report.problems == ["replaying from the snapshot of version 10 gives a different state at version 20 than the snapshot of version 20 holds"])
        let plan = try #require(report.repairPlan)
        #expect(plan.lastGoodVersion == 20 && plan.removeRecordsThrough == 20)
    }

    @Test func aRecordThisBuildCannotDecodeEndsTheReplayBeforeIt() throws {
        let (directory, storage) = try journal(records: 12, snapshots: [(10, 10)])
        defer { withExtendedLifetime(directory) { storage.close() } }
        try storage.append([JournalRecord(version: 13, type: "vanished", payload: Array("{}".utf8), time: 1)])
        let report = try verify(storage)
        #expect(report.problems.count == 1 && report.problems[0].contains("version 13 holds an action \"vanished\""), "\(report.problems)")
        #expect(report.repairPlan?.lastGoodVersion == 12)
        #expect(report.repairPlan?.snapshot.state == state(12))
    }

    /// Records whose index lost its order (the corruption test's flip of a version byte):
    /// a seek past the last version read lands before it again, and returns the same page.
    private struct OutOfOrderContents: JournalContents {
        var location: String { "out-of-order" }
        func storedSnapshots() throws(JournalError) -> [JournalSnapshot] { [] }
        func records(after version: UInt64, limit: Int) throws(JournalError) -> [JournalRecord] {
            [642, 3, 4].map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 1) }
        }
    }

    @Test func recordsOutOfVersionOrderEndTheScanWithAProblem() throws {
        let report = try JournalVerifier(store: try ExampleApp.store(), actions: ExampleApp.actions).verify(OutOfOrderContents())
        #expect(report.problems.contains { $0.contains("not in version order") }, "\(report.problems)")
        #expect(!report.isSound)
    }

    /// `folded`: the records moved from the log of recent records into `actions` first.
    @Test(arguments: [false, true])
    func whenNoVersionCanBeRebuiltThereIsNoRepair(folded: Bool) throws {
        let (directory, storage) = try journal(records: 3, snapshots: [])
        defer { withExtendedLifetime(directory) { storage.close() } }
        if folded { try storage.foldLog() }
        try SQLiteDatabase(path: storage.path, create: false).execute(folded ? "UPDATE actions SET time = 2 WHERE version = 1" : "UPDATE commit_log SET time = 2 WHERE version = 1")
        let report = try verify(storage)
        #expect(report.repairPlan == nil)
        #expect(report.problems.last?.contains("no version can be rebuilt") == true, "\(report.problems)")
    }
}
