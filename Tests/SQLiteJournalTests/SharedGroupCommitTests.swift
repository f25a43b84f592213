import ConcurrencyKit
import HTTPTestSupport
import Journal
@testable import SQLiteJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One committer for the stores of a file: one transaction (one sync) carries the batches of
/// several stores, and a failed one fails every store's waiters (`docs/journal.md`, "Many stores").
@Suite struct SharedGroupCommitTests {
    /// The file's transactions, which a test can hold back (to let batches of several stores
    /// queue up) or make fail (a full disk); it notes the stores of each transaction.
    final class GatedTransactions: JournalTransactions {
        private struct State {
            var holding = false
            var held = 0
            var failure: JournalError?
            var transactions: [[StoreID]] = []
        }

        private let database: SQLiteJournalStorage
        private let state = Lock(State())

        init(_ database: SQLiteJournalStorage) {
            self.database = database
        }

        func hold() { state.withLock { $0.holding = true } }

        func release() {
            state.withLock { $0.holding = false }
            state.notifyAll()
        }

        func fail(with error: JournalError?) { state.withLock { $0.failure = error } }

        func waitUntilATransactionIsHeld() -> Bool {
            state.wait(timeout: .seconds(10)) { $0.held > 0 }
        }

        /// Holds transactions from now on, and waits until the one `begin` causes is held.
        func holdTransaction(begunBy begin: () -> Void) -> Bool {
            hold()
            begin()
            return waitUntilATransactionIsHeld()
        }

        /// The stores of each transaction attempted, in order.
        var transactions: [[StoreID]] { state.withLock { $0.transactions } }

        func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?] {
            let stores = parts.map { ($0.storage as? SQLiteStoreJournal)?.store ?? .default }
            let held = state.withLock { state -> Bool in
                state.transactions.append(stores)
                if state.holding { state.held += 1 }
                return state.holding
            }
            if held {
                state.notifyAll()
                state.withLock(waitingUntil: { !$0.holding }) { _ in }
            }
            if let failure = state.withLock({ $0.failure }) { throw failure }
            return try database.write(parts)
        }
    }

    private func record(_ version: UInt64) -> JournalRecord {
        JournalRecord(version: version, type: "increase", payload: Array("{}".utf8), time: 1_700_000_000_000 + Int64(version))
    }

    /// The default store and `names`' stores of `database`, each with a journal on `committer`,
    /// the committer and the journals started.
    private func startedJournals(
        _ names: [String], of database: SQLiteJournalStorage, committer: JournalCommitter
    ) throws -> [GroupCommitJournal] {
        var storages: [any JournalStorage] = [database]
        for name in names {
            storages.append(try database.newStore(name))
        }
        let journals = storages.map { GroupCommitJournal(storage: $0, lastVersion: 0, committer: committer) }
        try #require(committer.start())
        for journal in journals { try #require(journal.start()) }
        return journals
    }

    @Test func oneTransactionCarriesTheBatchesOfSeveralStores() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-shared")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let gate = GatedTransactions(database)
        let committer = JournalCommitter(transactions: gate, policy: CommitPolicy(claimPatience: .zero))
        defer { committer.stop() }
        let stores = try startedJournals(["room-1", "room-2"], of: database, committer: committer)
        #expect(gate.holdTransaction { stores[0].append(record(1)) })
        // While the first transaction is held, the three stores queue records.
        stores[0].append(record(2))
        stores[1].append(record(1))
        stores[2].append(record(1))
        stores[2].append(record(2))
        gate.release()
        for (journal, last) in zip(stores, [2, 1, 2] as [UInt64]) {
            #expect(try journal.waitUntilDurable(last, timeout: .seconds(10))?.get() == last)
        }
        #expect(gate.transactions.map(Set.init) == [[.default], [.default, try StoreID("room-1"), try StoreID("room-2")]])
        let statistics = committer.statistics
        #expect(statistics.transactions == 2 && statistics.sharedTransactions == 1 && statistics.records == 5)
        #expect(try database.storage(for: StoreID("room-2"))?.records(after: 0, limit: 10).map(\.version) == [1, 2])
        #expect(try database.describe(StoreID("room-1"))?.version == 1)
    }

    @Test func aFailedTransactionFailsTheWaitersOfEveryStoreInItAndKeepsTheirRecords() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-shared")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let gate = GatedTransactions(database)
        let committer = JournalCommitter(
            transactions: gate, policy: CommitPolicy(claimPatience: .zero, firstRetryPause: .milliseconds(50))
        )
        defer { committer.stop() }
        let stores = try startedJournals(["a", "b"], of: database, committer: committer)
        #expect(gate.holdTransaction { stores[0].append(record(1)) })
        let outcomes = Mailbox<String>()
        for (index, journal) in stores.enumerated().dropFirst() {
            journal.append(record(1))
            journal.whenDurable(1) { result in
                switch result {
                case .success: outcomes.post("\(index) durable")
                case .failure(let error): outcomes.post("\(index) \(error.code)")
                }
            }
        }
        gate.fail(with: JournalError(code: .writeFailed, message: "disk full"))
        gate.release()
        let heard = Set([outcomes.next(timeout: .seconds(10)), outcomes.next(timeout: .seconds(10))])
        #expect(heard == ["1 writeFailed", "2 writeFailed"])
        #expect(stores.allSatisfy { $0.failure?.code == .writeFailed })
        gate.fail(with: nil)
        for journal in stores {
            // A retry already under way when the disk recovered may still fail: wait past it.
            var outcome = journal.waitUntilDurable(1, timeout: .seconds(10))
            for _ in 0..<3 where (try? outcome?.get()) == nil {
                outcome = journal.waitUntilDurable(1, timeout: .seconds(10))
            }
            #expect(try outcome?.get() == 1, "kept and committed on a retry")
            #expect(journal.failure == nil)
        }
        let both: Set = [try StoreID("a"), try StoreID("b")]
        #expect(gate.transactions.contains { Set($0).isSuperset(of: both) }, "a and b in one transaction: \(gate.transactions)")
        #expect(committer.statistics.failures >= 1)
        #expect(try database.storage(for: StoreID("b"))?.records(after: 0, limit: 10).map(\.version) == [1])
    }

    @Test func aLoneStoreStillCommitsOnTheCallingThreadThroughTheSharedCommitter() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-shared")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let journal = GroupCommitJournal(storage: try database.newStore("solo"), lastVersion: 0, committer: database.commits)
        let threads = Lock<[pthread_t]>([])
        journal.onDurable { _ in threads.withLock { $0.append(pthread_self()) } }
        #expect(journal.start())
        defer { journal.stop() }
        for version: UInt64 in 1...3 {
            journal.append(record(version))
            #expect(try journal.commitOnCallingThread(through: version)?.get() == version)
        }
        #expect(threads.withLock { $0 }.allSatisfy { pthread_equal($0, pthread_self()) != 0 })
        #expect(database.commits.statistics.transactions == 3)
        #expect(try database.describe(StoreID("solo"))?.version == 3)
    }

    @Test func aJournalOfADeletedStoreFailsForGoodWithoutHoldingUpTheOthers() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-shared")
        let database = try SQLiteJournalStorage(directory: directory.path, sync: .off)
        defer { database.close() }
        let stores = try startedJournals(["doomed"], of: database, committer: database.commits)
        defer { for journal in stores { journal.stop() } }
        #expect(try database.delete(StoreID("doomed")))
        stores[1].append(record(1))
        stores[0].append(record(1))
        let refused = try #require(stores[1].waitUntilDurable(1, timeout: .seconds(10)))
        #expect(throws: JournalError.self) { try refused.get() }
        #expect(stores[1].failure?.code == .closed)
        #expect(try stores[0].waitUntilDurable(1, timeout: .seconds(10))?.get() == 1)
    }
}
