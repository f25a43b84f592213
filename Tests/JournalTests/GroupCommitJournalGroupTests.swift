import ConcurrencyKit
import HTTPTestSupport
import Journal
import Testing

/// Groups: the records of one request and the answer kept for its `Idempotency-Key` always share a
/// transaction.
@Suite struct GroupCommitJournalGroupTests {
    private func answer(_ key: String) -> KeptAnswer {
        KeptAnswer(key: key, fingerprint: [1, 2, 3], status: 200, body: Array("{\"version\":1}".utf8), time: 1_700_000_000_000)
    }

    @Test func aGroupLargerThanMaxGroupGoesInOneTransactionWithItsAnswer() throws {
        let storage = MemoryJournalStorage()
        storage.holdCommits()
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0, maxGroup: 2)
        let heard = Mailbox<[String]>()
        journal.onAnswers { answers, result in
            if case .success = result { heard.post(answers.map(\.key)) }
        }
        #expect(journal.start())
        defer { journal.stop() }
        journal.append(record(1))
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(5)))
        journal.beginGroup()
        for version: UInt64 in 2...6 { journal.append(record(version)) }
        journal.endGroup(keeping: answer("k1"))
        journal.append(record(7))
        journal.append(record(8))
        storage.releaseCommits()
        #expect(try journal.waitUntilDurable(8, timeout: .seconds(5))?.get() == 8)
        #expect(heard.next(timeout: .seconds(5)) == ["k1"])
        #expect(storage.commits == [
            .init(versions: [1], answerKeys: []),
            .init(versions: [2, 3, 4, 5, 6], answerKeys: ["k1"]),
            .init(versions: [7, 8], answerKeys: []),
        ])
        #expect(storage.keptAnswers["k1"] == answer("k1"))
    }

    @Test func anOpenGroupIsNotCommittedUntilItEnds() throws {
        let (storage, journal) = try startedJournal()
        defer { journal.stop() }
        journal.append(record(1))
        #expect(try journal.waitUntilDurable(1, timeout: .seconds(5))?.get() == 1)
        journal.beginGroup()
        journal.append(record(2))
        journal.append(record(3))
        // A bounded negative check: while the group is open, its records are not committed.
        #expect(journal.waitUntilDurable(2, timeout: .milliseconds(300)) == nil)
        journal.endGroup(keeping: answer("k2"))
        #expect(try journal.waitUntilDurable(3, timeout: .seconds(5))?.get() == 3)
        #expect(storage.commits.last == .init(versions: [2, 3], answerKeys: ["k2"]))
    }

    @Test func anAnswerWithoutRecordsIsCommittedAlone() throws {
        let storage = MemoryJournalStorage()
        let journal = GroupCommitJournal(storage: storage, lastVersion: 4)
        let heard = Mailbox<[String]>()
        journal.onAnswers { answers, result in
            if case .success = result { heard.post(answers.map(\.key)) }
        }
        #expect(journal.start())
        defer { journal.stop() }
        journal.beginGroup()
        journal.endGroup(keeping: answer("accepted"))
        #expect(heard.next(timeout: .seconds(5)) == ["accepted"])
        #expect(storage.commits == [.init(versions: [], answerKeys: ["accepted"])])
        #expect(journal.durableVersion == 4)
    }

    @Test func nestedGroupsCountAsTheOutermostOne() throws {
        let (storage, journal) = try startedJournal()
        defer { journal.stop() }
        journal.beginGroup()
        journal.append(record(1))
        journal.beginGroup()
        journal.append(record(2))
        journal.endGroup(keeping: nil)
        #expect(journal.waitUntilDurable(1, timeout: .milliseconds(300)) == nil, "the outer group is still open")
        journal.append(record(3))
        journal.endGroup(keeping: answer("outer"))
        #expect(try journal.waitUntilDurable(3, timeout: .seconds(5))?.get() == 3)
        #expect(storage.commits == [.init(versions: [1, 2, 3], answerKeys: ["outer"])])
    }

    @Test func aFailedCommitReportsItsAnswersAndCommitsThemWithTheirRecordsLater() throws {
        let storage = MemoryJournalStorage()
        storage.failAppends(with: JournalError(code: .writeFailed, message: "disk full"))
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0)
        let heard = Mailbox<String>()
        journal.onAnswers { answers, result in
            switch result {
            case .success: heard.post("committed " + answers.map(\.key).joined())
            case .failure(let error): heard.post("failed \(answers.map(\.key).joined()): \(error.code)")
            }
        }
        #expect(journal.start())
        defer { journal.stop() }
        journal.beginGroup()
        journal.append(record(1))
        journal.endGroup(keeping: answer("k"))
        #expect(heard.next(timeout: .seconds(5)) == "failed k: writeFailed")
        storage.failAppends(with: nil)
        var last = heard.next(timeout: .seconds(10))
        while last?.hasPrefix("failed") == true { last = heard.next(timeout: .seconds(10)) }
        #expect(last == "committed k")
        #expect(storage.commits == [.init(versions: [1], answerKeys: ["k"])])
    }
}
