import ConcurrencyKit
import Journal
import Testing

/// A ``JournalDurabilityListener``: the object a store's commit gate is to its journal. The first
/// one is held in the journal's state and called before the closures; a second one is called
/// after them, in the order added; all are dropped at the stop.
@Suite struct DurabilityListenerTests {
    /// Logs what it hears as `name version`.
    final class Recorder: JournalDurabilityListener {
        let name: String
        let log: Lock<[String]>

        init(_ name: String, log: Lock<[String]>) {
            self.name = name
            self.log = log
        }

        func journalDidCommit(through version: UInt64) {
            log.withLock { $0.append("\(name) \(version)") }
        }
    }

    @Test func objectsHearEveryCommitTheFirstBeforeTheClosuresAndNoneAfterTheStop() throws {
        let log = Lock<[String]>([])
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0)
        journal.onDurable { version in log.withLock { $0.append("closure \(version)") } }
        journal.onDurable(Recorder("first", log: log))
        journal.onDurable(Recorder("second", log: log))
        try #require(journal.start())

        journal.append(record(1))
        #expect(journal.waitUntilDurable(1, timeout: .seconds(10)) == .success(1))
        journal.append(record(2))
        journal.append(record(3))
        #expect(journal.waitUntilDurable(3, timeout: .seconds(10)) == .success(3))
        #expect(journal.stop() == nil)

        let heard = log.withLock { $0 }
        // Versions 2 and 3 may share a commit or not; each commit is heard in this order.
        let commits = heard.count / 3
        #expect(heard.count == commits * 3 && (2...3).contains(commits))
        for index in 0..<commits {
            let version = heard[index * 3].split(separator: " ").last ?? ""
            #expect(Array(heard[(index * 3)..<(index * 3 + 3)]) == ["first \(version)", "closure \(version)", "second \(version)"])
        }
        #expect(heard.last?.hasSuffix(" 3") == true)
    }

    /// The journal holds its listener until the stop only: a gate that holds the journal (through
    /// its store's handler) and is held by it is freed once both are dropped.
    @Test func theStopDropsTheListenerObject() throws {
        weak var weakRecorder: Recorder?
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0)
        do {
            let recorder = Recorder("only", log: Lock([]))
            weakRecorder = recorder
            journal.onDurable(recorder)
        }
        #expect(weakRecorder != nil, "held by the journal")
        try #require(journal.start())
        journal.stop()
        #expect(weakRecorder == nil)
    }
}
