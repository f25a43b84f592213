import ConcurrencyKit
import HTTPTestSupport
import Journal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``GroupCommitJournal/commitOnCallingThread(through:)``: a lone request commits on its own
/// thread; under load, or while a commit runs, it is left to the journal thread; a record claimed
/// for a thread that never comes for it is still committed.
@Suite struct GroupCommitInlineTests {
    @Test func aLoneRecordIsCommittedOnTheCallingThreadWithItsListeners() throws {
        let listenerThreads = Lock<[pthread_t]>([])
        let (storage, journal) = try startedJournal { _ in listenerThreads.withLock { $0.append(pthread_self()) } }
        defer { journal.stop() }
        for version: UInt64 in 1...3 {
            journal.append(record(version))
            #expect(try journal.commitOnCallingThread(through: version)?.get() == version)
            #expect(journal.durableVersion == version)
        }
        #expect(storage.committedRecords.map(\.version) == [1, 2, 3])
        #expect(storage.appendCalls == 3)
        let threads = listenerThreads.withLock { $0 }
        #expect(threads.count == 3)
        #expect(threads.allSatisfy { pthread_equal($0, pthread_self()) != 0 }, "the listeners ran on the calling thread")
    }

    @Test func underLoadTheJournalThreadCommitsAndTheCallerWaits() throws {
        let storage = MemoryJournalStorage()
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0)
        let committingThreads = Lock<[UInt64: pthread_t]>([:])
        journal.onDurable { version in committingThreads.withLock { $0[version] = pthread_self() } }
        // Queued before the thread starts: its first commit holds ten records, which is load.
        for version: UInt64 in 1...10 {
            journal.append(record(version))
        }
        #expect(journal.start())
        defer { journal.stop() }
        #expect(try journal.waitUntilDurable(10, timeout: .seconds(5))?.get() == 10)
        journal.append(record(11))
        // Nil (wait), or already durable if the journal thread was quicker: never committed here.
        let outcome = journal.commitOnCallingThread(through: 11)
        #expect(outcome == nil || outcome == .success(11))
        #expect(try journal.waitUntilDurable(11, timeout: .seconds(5))?.get() == 11)
        #expect(storage.appendCalls == 2)
        let thread = try #require(committingThreads.withLock { $0[11] })
        #expect(pthread_equal(thread, pthread_self()) == 0, "after a batch of ten, the journal thread commits")
    }

    @Test func whileACommitRunsTheCallerIsToldToWait() throws {
        let (storage, journal) = try startedJournal()
        defer { journal.stop() }
        storage.holdCommits()
        journal.append(record(1))
        // Nobody commits version 1 on its own thread: the journal thread takes it once the claim
        // lapses, and holds it in the storage.
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        journal.append(record(2))
        #expect(journal.commitOnCallingThread(through: 2) == nil, "a commit is running")
        storage.releaseCommits()
        #expect(try journal.waitUntilDurable(2, timeout: .seconds(5))?.get() == 2)
        #expect(storage.committedRecords.map(\.version) == [1, 2])
    }

    @Test func aClaimedRecordNobodyComesForIsCommittedOnceTheClockPassesItsPatience() throws {
        let clock = ManualJournalClock()
        let (storage, journal) = try startedJournal(clock: clock)
        defer { journal.stop() }
        journal.append(record(1))  // claimed for this thread, which never commits it
        // No waiter either (a waiter would end the claim): while the clock stands, the claim holds.
        #expect(!storage.wait(timeout: .milliseconds(50)) { !$0.committedRecords.isEmpty }, "left to its thread")
        clock.advance(by: CommitPolicy().claimPatience)
        #expect(storage.wait(timeout: .seconds(5)) { $0.committedRecords.map(\.version) == [1] })
        // The committer makes the version durable just after the storage holds it: wait for it.
        #expect(try journal.waitUntilDurable(1, timeout: .seconds(5))?.get() == 1)
    }

    @Test func aClaimMadeWhileTheCommitterLingersIsStillCommittedByIt() throws {
        let clock = ManualJournalClock()
        let (storage, journal) = try startedJournal(clock: clock)
        defer { journal.stop() }
        journal.append(record(1))
        #expect(try journal.commitOnCallingThread(through: 1)?.get() == 1)
        // Right after a claim the committer looks at claims by itself (a new one does not wake
        // it): this one, nobody comes for, must still be committed once it lapses.
        journal.append(record(2))
        clock.advance(by: CommitPolicy().claimPatience)
        #expect(storage.wait(timeout: .seconds(5)) { $0.committedRecords.map(\.version) == [1, 2] })
    }

    @Test func withoutClaimPatienceNothingIsLeftToTheCallingThread() throws {
        let (storage, journal) = try startedJournal(policy: CommitPolicy(claimPatience: .zero))
        defer { journal.stop() }
        journal.append(record(1))
        #expect(storage.wait(timeout: .seconds(5)) { $0.committedRecords.count == 1 }, "the committer took it at once")
        #expect(storage.appendThreads == ["journal-commit"])
    }

    @Test func aWaiterEndsTheClaimAtOnce() throws {
        let (storage, journal) = try startedJournal()
        defer { journal.stop() }
        for version: UInt64 in 1...200 {
            journal.append(record(version))
            #expect(try journal.waitUntilDurable(version, timeout: .seconds(5))?.get() == version)
        }
        #expect(storage.committedRecords.count == 200)
    }
}
