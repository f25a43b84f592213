import Foundation
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

/// A write-ahead log left by a crash whose frames do not all hold (``WriteAheadLogCheck``): the
/// torn end of the last transaction is dropped as SQLite drops it; damage followed by complete
/// transactions refuses the start, saying what may have been lost.
@Suite struct SQLiteWriteAheadLogCheckTests {
    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: [], time: 1_700_000_000_000 + Int64(version))
    }

    /// A crash image of a journal holding `commits` single-record commits still in its
    /// write-ahead log (and a fold of the log into `actions` once it holds `foldThreshold`), with
    /// `damage` applied to the log (its bytes, and the size of its pages).
    private func crashImage(
        commits: UInt64 = 5, foldThreshold: Int = SQLiteJournalStorage.defaultFoldThreshold,
        damage: (inout [UInt8], Int) -> Void
    ) throws -> TemporaryDirectory {
        let live = try TemporaryDirectory(prefix: "remvvm-journal")
        let crashed = try TemporaryDirectory(prefix: "remvvm-journal-crashed")
        let storage = try SQLiteJournalStorage(directory: live.path, sync: .full, foldThreshold: foldThreshold)
        defer { storage.close() }
        for version: UInt64 in 1...commits { try storage.append([record(version)]) }
        try FileManager.default.copyItem(atPath: storage.path, toPath: crashed.path + "/journal.sqlite")
        var log = [UInt8](try Data(contentsOf: URL(fileURLWithPath: storage.path + "-wal")))
        let pageSize = Int(log[8]) << 24 | Int(log[9]) << 16 | Int(log[10]) << 8 | Int(log[11])
        damage(&log, pageSize)
        try Data(log).write(to: URL(fileURLWithPath: crashed.path + "/journal.sqlite-wal"))
        return crashed
    }

    /// The byte offsets of the first frame of each transaction in `log`: a frame whose header
    /// holds a database size (its bytes 4...7) is a transaction's last.
    private func transactionStarts(in log: [UInt8], pageSize: Int) -> [Int] {
        var starts = [32]
        var offset = 32
        while offset + 24 + pageSize <= log.count {
            let isCommit = log[(offset + 4)..<(offset + 8)].contains { $0 != 0 }
            offset += 24 + pageSize
            if isCommit, offset + 24 + pageSize <= log.count { starts.append(offset) }
        }
        return starts
    }

    /// SQLite replays a log up to its first damaged frame and drops the rest: right for the torn
    /// end of the last transaction, wrong for damage followed by complete, acknowledged commits
    /// (from a review: one flipped byte restarted the server at version 24 of 50, or 0 for the
    /// log's header, and a clean stop then deleted the log).
    @Test func damageFollowedByCompleteCommitsInTheWriteAheadLogIsRefused() throws {
        for (name, offset) in [("a page of the first frame", { (_: Int) in 32 + 24 + 100 }), ("the header's salt", { (_: Int) in 17 })] {
            let crashed = try crashImage { log, pageSize in log[offset(pageSize)] ^= 0x5a }
            let error = try #require(throws: JournalError.self, "\(name)") {
                _ = try SQLiteJournalStorage(directory: crashed.path, sync: .full)
            }
            #expect(error.code == .corrupt)
            #expect(error.message.contains(crashed.path + "/journal.sqlite-wal is damaged at byte"), "\(error.message)")
            #expect(error.message.contains("complete transaction(s) follow the damage"), "\(error.message)")
            #expect(error.message.contains("If the damaged transaction was a synced commit, they may hold acknowledged actions"), "\(error.message)")
        }
    }

    /// Damage in the log's last frame is the torn end of a commit never acknowledged: discarded,
    /// the earlier commits kept, as before.
    @Test func damageInTheLastCommitOfTheWriteAheadLogIsATornCommit() throws {
        let whole = try crashImage { _, _ in }
        let intact = try SQLiteJournalStorage(directory: whole.path, sync: .full)
        #expect(try intact.recover().lastVersion == 5)
        intact.close()
        let torn = try crashImage { log, _ in log[log.count - 10] ^= 0x5a }
        let storage = try SQLiteJournalStorage(directory: torn.path, sync: .full)
        defer { storage.close() }
        let recovery = try storage.recover()
        #expect(recovery.lastVersion == 4 && recovery.previousStopWasUnclean)
    }

    /// A fold of the log into `actions` is written without a sync of its own, and the commit
    /// after it is synced: a power loss during that sync can leave the fold torn and the commit
    /// complete, never acknowledged. The log cannot tell this from damage to synced commits: the
    /// start is refused still, but the message does not call what follows acknowledged.
    @Test func aTornFoldFollowedByACompleteCommitIsNotCalledAcknowledged() throws {
        var withoutFold = 0
        _ = try crashImage(commits: 5) { log, pageSize in withoutFold = transactionStarts(in: log, pageSize: pageSize).count }
        var withFold = 0
        // Four commits, then the fold (at four records in the log) and the fifth commit: the fold
        // is the one but last transaction.
        let crashed = try crashImage(commits: 5, foldThreshold: 4) { log, pageSize in
            let starts = transactionStarts(in: log, pageSize: pageSize)
            withFold = starts.count
            log[starts[starts.count - 2] + 24 + 100] ^= 0x5a
        }
        #expect(withFold == withoutFold + 1, "the fold is a transaction of its own")
        let error = try #require(throws: JournalError.self) { _ = try SQLiteJournalStorage(directory: crashed.path, sync: .full) }
        #expect(error.code == .corrupt)
        #expect(!error.message.contains("acknowledged actions follow the damage"), "\(error.message)")
        #expect(error.message.contains("1 complete transaction(s) follow the damage"), "\(error.message)")
        #expect(error.message.contains("a fold of the log into actions"), "\(error.message)")
        #expect(error.message.contains("never synced nor acknowledged"), "\(error.message)")
    }
}
