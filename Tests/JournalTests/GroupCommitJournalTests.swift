import ConcurrencyKit
import HTTPTestSupport
import Journal
import Testing

/// ``GroupCommitJournal``: order, group commit, failures that drop nothing, gaps, stop, crashes.
@Suite struct GroupCommitJournalTests {
    @Test func recordsBecomeDurableInOrderAndWaitersAreReleased() throws {
        let (storage, journal) = try startedJournal()
        defer { journal.stop() }
        for version: UInt64 in 1...50 {
            journal.append(record(version))
        }
        #expect(try journal.waitUntilDurable(50, timeout: .seconds(5))?.get() == 50)
        #expect(journal.durableVersion == 50)
        #expect(storage.committedRecords.map(\.version) == Array(1...50))
        #expect(try journal.waitUntilDurable(10, timeout: .zero)?.get() == 50, "an older version is durable at once")
    }

    @Test func recordsQueuedDuringACommitGoTogetherInTheNextOne() throws {
        let storage = MemoryJournalStorage()
        storage.holdCommits()
        let journal = try startedJournal(over: storage).journal
        defer { journal.stop() }
        journal.append(record(1))
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)), "the first commit is under way")
        for version: UInt64 in 2...101 {
            journal.append(record(version))
        }
        storage.releaseCommits()
        #expect(try journal.waitUntilDurable(101, timeout: .seconds(5))?.get() == 101)
        #expect(storage.appendCalls == 2, "one commit for version 1, one for the 100 queued meanwhile")
        #expect(journal.statistics.commits == 2)
        #expect(journal.statistics.records == 101)
    }

    @Test func aFailedCommitFailsItsWaitersKeepsItsRecordsAndIsRetried() throws {
        let storage = MemoryJournalStorage()
        let full = JournalError(code: .writeFailed, message: "disk full")
        storage.failAppends(with: full)
        let journal = try startedJournal(over: storage).journal
        defer { journal.stop() }
        journal.append(record(1))
        journal.append(record(2))
        let outcome = journal.waitUntilDurable(2, timeout: .seconds(5))
        #expect(outcome.map { if case .failure(let error) = $0 { error.code == .writeFailed } else { false } } == true)
        #expect(journal.failure?.code == .writeFailed)
        #expect(journal.durableVersion == 0, "nothing acknowledged that is not durable")

        storage.failAppends(with: nil)  // the disk has room again
        #expect(try journal.waitUntilDurable(2, timeout: .seconds(10))?.get() == 2)
        #expect(storage.committedRecords.map(\.version) == [1, 2], "the records were kept and retried")
        #expect(journal.failure == nil)
    }

    /// A stop while commits fail cannot commit what is queued: it says which versions it could
    /// not, for the server to report (they were dropped without a word before).
    @Test func aStopWhileCommitsFailSaysWhichVersionsWereNeverCommitted() throws {
        let (storage, journal) = try startedJournal()
        journal.append(record(1))
        #expect(journal.waitUntilDurable(1, timeout: .seconds(5)) != nil)
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full"))
        journal.append(record(2))
        journal.append(record(3))
        #expect(journal.waitUntilDurable(3, timeout: .seconds(5)).map { if case .failure = $0 { true } else { false } } == true)
        #expect(journal.stop() == 2...3)
        #expect(journal.stop() == 2...3, "idempotent")
        #expect(storage.committedRecords.map(\.version) == [1])
    }

    @Test func aRecordThatWouldLeaveAGapBreaksTheJournalForGood() throws {
        let journal = try startedJournal().journal
        defer { journal.stop() }
        journal.append(record(1))
        journal.append(record(3))
        #expect(journal.failure?.code == .corrupt)
        journal.append(record(2))
        let outcome = journal.waitUntilDurable(2, timeout: .seconds(5))
        #expect(outcome.map { if case .failure = $0 { true } else { false } } == true)
    }

    @Test func stopCommitsWhatIsQueuedAndLaterWaitersAreToldItStopped() throws {
        let (storage, journal) = try startedJournal(lastVersion: 7)
        for version: UInt64 in 8...20 {
            journal.append(record(version))
        }
        journal.stop()
        #expect(storage.committedRecords.map(\.version) == Array(8...20))
        let late = journal.waitUntilDurable(21, timeout: .seconds(1))
        #expect(late.map { if case .failure(let error) = $0 { error.code == .closed } else { false } } == true)
    }

    /// The journal-layer crash test: writes not yet committed are lost, and every version whose
    /// durability was confirmed survives.
    @Test func aCrashLosesOnlyWhatWasNeverConfirmedDurable() throws {
        let storage = MemoryJournalStorage()
        storage.holdCommits()
        let journal = try startedJournal(over: storage).journal
        defer {
            storage.releaseCommits()
            journal.stop()
        }
        let confirmed = Mailbox<UInt64>()
        for version: UInt64 in 1...10 {
            journal.append(record(version))
            journal.whenDurable(version) { if case .success = $0 { confirmed.post(version) } }
        }
        storage.releaseCommits()
        #expect(confirmed.next(10, timeout: .seconds(5)).count == 10)
        // Versions 11...15 wait behind a commit that never finishes: the process dies here.
        storage.holdCommits()
        for version: UInt64 in 11...15 {
            journal.append(record(version))
            journal.whenDurable(version) { if case .success = $0 { confirmed.post(version) } }
        }
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        let survivor = storage.survivorOfCrash()
        #expect(try survivor.recover().lastVersion == 10)
        #expect(try survivor.records(after: 0, limit: 100).map(\.version) == Array(1...10))
        #expect(confirmed.snapshot.isEmpty, "nothing of 11...15 was confirmed")
    }

    /// A commit releases the waiters of the versions it made durable, whatever order they came
    /// in, and no other: a waiter of a later version goes on waiting for its own commit.
    @Test func aCommitReleasesOnlyTheWaitersOfVersionsItMadeDurable() throws {
        let (_, journal) = try startedJournal()
        defer { journal.stop() }
        let released = Mailbox<(waiter: UInt64, durable: UInt64)>()
        for version: UInt64 in [5, 2, 1] {
            journal.whenDurable(version) { if case .success(let durable) = $0 { released.post((version, durable)) } }
        }
        journal.append(record(1))
        journal.append(record(2))
        let first = released.next(2, timeout: .seconds(5))
        #expect(Set(first.map(\.waiter)) == [1, 2])
        #expect(first.allSatisfy { $0.durable >= $0.waiter })
        #expect(journal.durableVersion == 2)
        #expect(released.snapshot.isEmpty, "the waiter of version 5 was released by a commit that ended at 2")
        for version: UInt64 in 3...5 {
            journal.append(record(version))
        }
        let last = released.next(1, timeout: .seconds(5))
        #expect(last.map(\.waiter) == [5])
        #expect(last.first?.durable == 5)
    }
}
