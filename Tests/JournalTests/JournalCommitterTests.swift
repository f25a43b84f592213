import ConcurrencyKit
import HTTPTestSupport
import Journal
import Testing

/// ``JournalCommitter``'s thread: a stop commits what is queued and ends it, a stop that cannot
/// end it in time says so, a committer stopped before its start never starts, and a transaction
/// is told to its listeners once, whatever stores it carried.
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

    @Test func aTransactionOfSeveralStoresIsToldOnceToTheListenerOfItsKey() throws {
        let first = MemoryJournalStorage()
        let second = MemoryJournalStorage()
        let committer = JournalCommitter(
            transactions: SeparateJournalTransactions(), policy: CommitPolicy(claimPatience: .zero), name: "commit-told"
        )
        defer { committer.stop() }
        let heard = Mailbox<Int>()
        let replaced = Mailbox<Int>()
        let key = ObjectIdentifier(heard)
        committer.onTransaction(key: key) { records, _ in replaced.post(records) }
        committer.onTransaction(key: key) { records, _ in heard.post(records) }
        let journals = [first, second].map { GroupCommitJournal(storage: $0, lastVersion: 0, committer: committer) }
        for journal in journals { #expect(journal.start()) }
        first.holdCommits()
        journals[0].append(record(1))
        #expect(first.waitUntilACommitIsHeld(timeout: .seconds(10)), "the first transaction is under way")
        // While it is held, both stores queue records: the next transaction carries all four.
        journals[0].append(record(2))
        for version: UInt64 in 1...3 { journals[1].append(record(version)) }
        first.releaseCommits()
        #expect(try journals[0].waitUntilDurable(2, timeout: .seconds(10))?.get() == 2)
        #expect(try journals[1].waitUntilDurable(3, timeout: .seconds(10))?.get() == 3)
        #expect(heard.next(timeout: .seconds(10)) == 1)
        #expect(heard.next(timeout: .seconds(10)) == 4, "one transaction, both stores' records")
        #expect(committer.statistics.transactions == 2)
        #expect(heard.next(timeout: .milliseconds(1)) == nil && replaced.next(timeout: .milliseconds(1)) == nil)
    }

    /// The waiters of a transaction of several stores are told after every store's listeners
    /// (each store's durable state is released first, as with one store), never one store's
    /// waiters between two stores' listeners.
    @Test func aTransactionOfSeveralStoresTellsEveryListenerBeforeAnyWaiter() throws {
        let first = MemoryJournalStorage()
        let second = MemoryJournalStorage()
        let committer = JournalCommitter(
            transactions: SeparateJournalTransactions(), policy: CommitPolicy(claimPatience: .zero), name: "commit-order"
        )
        defer { committer.stop() }
        let log = Lock<[String]>([])
        let journals = [first, second].map { GroupCommitJournal(storage: $0, lastVersion: 0, committer: committer) }
        for (index, journal) in journals.enumerated() {
            journal.onDurable { version in log.withLock { $0.append("durable \(index) \(version)") } }
            #expect(journal.start())
        }
        first.holdCommits()
        journals[0].append(record(1))
        #expect(first.waitUntilACommitIsHeld(timeout: .seconds(10)), "the first transaction is under way")
        journals[0].append(record(2))
        journals[1].append(record(1))
        let told = Mailbox<String>()
        journals[0].whenDurable(2) { _ in
            log.withLock { $0.append("waiter 0") }
            told.post("0")
        }
        journals[1].whenDurable(1) { _ in
            log.withLock { $0.append("waiter 1") }
            told.post("1")
        }
        log.withLock { $0.removeAll() }  // the held transaction's listener runs after the release
        first.releaseCommits()
        #expect(told.next(2, timeout: .seconds(10)).count == 2)
        let entries = log.withLock { $0 }.filter { $0 != "durable 0 1" }
        #expect(Set(entries.prefix(2)) == ["durable 0 2", "durable 1 1"], "both stores' listeners first: \(entries)")
        #expect(Set(entries.suffix(2)) == ["waiter 0", "waiter 1"], "then both waiters: \(entries)")
        #expect(entries.count == 4)
    }

    /// Transactions that answer fewer results than parts break their contract: the committer
    /// takes nothing as stored (every waiter told it failed, the records kept queued) rather
    /// than trusting the answers it has.
    @Test func aTransactionThatAnswersTooFewResultsFailsEveryPart() throws {
        struct Short: JournalTransactions {
            func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?] { [] }
        }
        let committer = JournalCommitter(transactions: Short(), policy: CommitPolicy(claimPatience: .zero), name: "commit-short")
        defer { committer.stop() }
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0, committer: committer)
        #expect(journal.start())
        journal.append(record(1))
        let outcome = try #require(journal.waitUntilDurable(1, timeout: .seconds(10)))
        #expect(throws: JournalError.self) { try outcome.get() }
        #expect(journal.failure?.code == .unusable)
        #expect(journal.durableVersion == 0)
        #expect(committer.statistics.records == 0)
        #expect(journal.stop() == 1...1, "never stored: reported lost at the stop")
    }
}
