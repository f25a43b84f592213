import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// Kept answers and older snapshots in ``SQLiteJournalStorage``.
@Suite struct SQLiteKeptAnswerTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: [], time: 1_700_000_000_000 + Int64(version))
    }

    private func answer(_ key: String, time: Int64, status: Int = 200) -> KeptAnswer {
        KeptAnswer(key: key, fingerprint: Array(key.utf8.reversed()), status: status, body: Array("{\"version\":2}".utf8), time: time)
    }

    @Test func answersAreCommittedWithTheirRecordsAndSurviveReopening() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-answers")
        do {
            let storage = try SQLiteJournalStorage(directory: directory.path, sync: .full)
            try storage.append([record(1), record(2)], answers: [answer("order-17", time: 5_000)])
            try storage.append([], answers: [answer("accepted-1", time: 6_000, status: 202)])
            #expect(try storage.answer(forKey: "order-17") == answer("order-17", time: 5_000))
            storage.close()
        }
        let reopened = try SQLiteJournalStorage(directory: directory.path, sync: .full)
        defer { reopened.close() }
        #expect(try reopened.answer(forKey: "order-17") == answer("order-17", time: 5_000))
        #expect(try reopened.answer(forKey: "accepted-1") == answer("accepted-1", time: 6_000, status: 202))
        #expect(try reopened.answer(forKey: "unknown") == nil)
        #expect(try reopened.recover().lastVersion == 2)
    }

    @Test func expiredAnswersAreRemovedAndLaterOnesKept() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-answers")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.append([record(1)], answers: [answer("old", time: 1_000), answer("new", time: 9_000)])
        try storage.removeAnswers(keptBefore: 5_000)
        #expect(try storage.answer(forKey: "old") == nil)
        #expect(try storage.answer(forKey: "new") != nil)
    }

    /// A repair removes the answers of the requests whose actions it removed, and only those: by
    /// the version an answer names, not by its time (found by a review: an answer is stamped after
    /// its reduce, often a millisecond after its last record, so a time rule dropped the answer of
    /// a kept request — a retry applied it twice — and kept one of a removed request stamped in
    /// the same millisecond as the last kept record — a retry was told it was applied).
    @Test func aRepairRemovesTheAnswersOfTheActionsItRemovesByTheirVersion() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-answers")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        func at(_ version: UInt64) -> JournalRecord {
            JournalRecord(version: version, type: "increase", payload: [], time: 1_000)
        }
        func answer(_ key: String, version: UInt64, time: Int64) -> KeptAnswer {
            KeptAnswer(key: key, fingerprint: [1], status: 200, body: Array("{\"version\":\(version)}".utf8), time: time)
        }
        try storage.append([at(1), at(2), at(3)], answers: [answer("kept", version: 3, time: 1_001)])
        try storage.append([at(4)], answers: [answer("removed", version: 4, time: 1_000)])
        try storage.append([], answers: [KeptAnswer(key: "accepted", fingerprint: [2], status: 202, body: Array(#"{"accepted":true}"#.utf8), time: 999)])
        try storage.repair(JournalRepairPlan(
            lastGoodVersion: 3, snapshot: JournalSnapshot(version: 3, state: Array("{}".utf8), time: 2_000), removeRecordsThrough: nil
        ))
        #expect(try storage.recover().lastVersion == 3)
        #expect(try storage.answer(forKey: "kept") != nil, "its actions stand: a retry gets the answer")
        #expect(try storage.answer(forKey: "removed") == nil, "its action is gone: a retry applies it again")
        #expect(try storage.answer(forKey: "accepted") != nil, "no version: kept before the last kept record's time")
        #expect(SQLiteJournalStorage.answeredVersion(Array(#"{"version":18446744073709551615}"#.utf8)) == UInt64.max)
        #expect(SQLiteJournalStorage.answeredVersion(Array(#"{"version":}"#.utf8)) == nil)
        #expect(SQLiteJournalStorage.answeredVersion(Array(#"{"accepted":true}"#.utf8)) == nil)
    }

    @Test func theNewestSnapshotAtOrBeforeAVersionIsFound() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-answers")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        try storage.append((1...30).map(record))
        try storage.saveSnapshot(JournalSnapshot(version: 10, state: Array("{\"n\":10}".utf8), time: 1))
        try storage.saveSnapshot(JournalSnapshot(version: 20, state: Array("{\"n\":20}".utf8), time: 2))
        #expect(try storage.snapshot(atOrBefore: 9) == nil)
        #expect(try storage.snapshot(atOrBefore: 15)?.version == 10)
        #expect(try storage.snapshot(atOrBefore: 20)?.version == 20)
        #expect(try storage.snapshot(atOrBefore: 1_000)?.state == Array("{\"n\":20}".utf8))
    }
}

/// Checkpoints happen off the journal thread, and the log stays small.
@Suite struct SQLiteCheckpointTests {
    @Test func theLogIsCheckpointedInTheBackgroundAndStaysSmall() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-wal")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { storage.close() }
        let payload = Array(String(repeating: "x", count: 200).utf8)
        // 5,000 commits of 2 records: without checkpoints the log would hold every page written.
        for commit in 0..<5_000 {
            let first = UInt64(commit * 2 + 1)
            try storage.append([
                JournalRecord(version: first, type: "increase", payload: payload, time: 1),
                JournalRecord(version: first + 1, type: "increase", payload: payload, time: 1),
            ])
        }
        #expect(storage.checkpointNow(timeout: .seconds(10)))
        // The next commit starts the log over and cuts its file back to the size limit.
        try storage.append([JournalRecord(version: 10_001, type: "increase", payload: payload, time: 1)])
        let log = try FileManager.default.attributesOfItem(atPath: directory.path + "/journal.sqlite-wal")[.size] as? Int ?? 0
        #expect(log <= 4 << 20, "the log was started over after the checkpoint (\(log) bytes)")
        #expect(try storage.recover().lastVersion == 10_001)
    }

    /// Appending to the log file makes every fsync also write the file's new size (measured here:
    /// 410 µs per 4 KiB write and fdatasync at the end of a file, 240 µs over existing blocks), so
    /// the log must start over while commits keep coming, not only in a pause long enough for a
    /// background checkpoint to catch up.
    @Test func theLogStartsOverWhileCommitsKeepComing() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-checkpoint")
        let storage = try SQLiteJournalStorage(directory: directory.path, sync: .normal)
        defer { storage.close() }
        let payload = Array(String(repeating: "x", count: 3_000).utf8)
        let logPath = directory.path + "/journal.sqlite-wal"
        var largest = 0
        // 3,000 commits of 3 KB: over 30 MB of log pages if the log never started over.
        for version in 1...3_000 {
            try storage.append([JournalRecord(version: UInt64(version), type: "increase", payload: payload, time: 1)])
            let size = try FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int ?? 0
            largest = max(largest, size)
            if version % 512 == 0 {
                // Every 512 commits, wait for a background checkpoint (the checkpointer's own
                // thread, as the commits' requests run it): with the whole suite on two cores
                // that thread can be starved for longer than this loop takes, and the log would
                // grow for want of CPU, not of a restart (largest 9-15 MB in full runs, never
                // alone). What is checked is that the log starts over while one writer keeps
                // committing.
                #expect(storage.checkpointNow(timeout: .seconds(10)))
            }
        }
        #expect(storage.checkpointsCompleted > 0)
        // Format 3 writes more pages per commit than format 2 did (the store's head row, and the
        // (store, version) key's page beside the row's overflow page): 9-11.5 MB here; a log that
        // never started over would hold every commit's pages, over 30 MB.
        #expect(largest <= 14 << 20, "the log started over during the commits (largest \(largest) bytes)")
        #expect(try storage.recover().lastVersion == 3_000)
    }

    /// Checkpoints that fail are reported once when they start failing and once when they
    /// succeed again (they failed silently while the log grew, from a review).
    @Test func failingCheckpointsAreReportedWhenTheyStartAndWhenTheyStop() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-journal")
        let database = try SQLiteDatabase(path: directory.path + "/db.sqlite", create: true)
        try database.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x)")
        let checkpointer = try WALCheckpointer(path: directory.path + "/db.sqlite")
        #expect(checkpointer.start())
        defer { checkpointer.stop() }
        let reports = Mailbox<String?>()
        checkpointer.onProblem { reports.post($0) }
        // A write transaction left open on the checkpointer's own connection: SQLite refuses a
        // checkpoint inside it.
        try checkpointer.withConnection { (database: SQLiteDatabase) throws(SQLiteError) in try database.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)") }
        for _ in 0..<2 { checkpointer.request() }
        let failing = try #require(reports.next(timeout: .seconds(5)))
        #expect(failing != nil, "the error, once")
        try checkpointer.withConnection { (database: SQLiteDatabase) throws(SQLiteError) in try database.execute("COMMIT") }
        #expect(checkpointer.checkpointNow(timeout: .seconds(5)))
        #expect(reports.next(timeout: .seconds(5)) == .some(nil), "recovered (a second report of the failure would come first)")
    }
}
