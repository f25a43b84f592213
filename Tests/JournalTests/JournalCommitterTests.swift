import ConcurrencyKit
import Journal
import Testing

/// ``JournalCommitter``'s thread: a stop commits what is queued and ends it, a stop that cannot
/// end it in time says so, and a committer stopped before its start never starts.
@Suite struct JournalCommitterTests {
    @Test func aStopCommitsWhatIsQueuedAndEndsTheThread() throws {
        let storage = MemoryJournalStorage()
        let committer = JournalCommitter(transactions: SeparateJournalTransactions(), name: "commit-test")
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0, committer: committer)
        #expect(journal.start())
        #expect(committer.isThreadRunning)
        for version: UInt64 in 1...20 {
            journal.append(record(version))
        }
        try committer.stop(timeout: .seconds(30))
        #expect(!committer.isThreadRunning)
        #expect(storage.committedRecords.map(\.version) == Array(1...20))
        #expect(!committer.start(), "a stopped committer does not start again")
    }

    @Test func aStopThatCannotEndTheThreadInTimeThrowsAndALaterOneEndsIt() throws {
        let storage = MemoryJournalStorage()
        storage.holdCommits()
        let committer = JournalCommitter(transactions: SeparateJournalTransactions(), name: "commit-stuck")
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0, committer: committer)
        #expect(journal.start())
        journal.append(record(1))
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(10)), "a commit is under way")
        #expect(throws: WorkerError(.stopTimedOut, name: "commit-stuck", timeout: .milliseconds(50))) {
            try committer.stop(timeout: .milliseconds(50))
        }
        #expect(committer.isThreadRunning, "the thread is still in its commit")
        storage.releaseCommits()
        try committer.stop(timeout: .seconds(30))
        #expect(!committer.isThreadRunning)
        #expect(storage.committedRecords.map(\.version) == [1])
    }

    @Test func aCommitterStoppedBeforeItStartsNeverStartsAThread() throws {
        let committer = JournalCommitter(transactions: SeparateJournalTransactions(), name: "commit-never")
        try committer.stop(timeout: .seconds(1))
        #expect(!committer.start())
        #expect(!committer.isThreadRunning)
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0, committer: committer)
        #expect(!journal.start(), "no journal registers with a stopped committer")
    }
}
