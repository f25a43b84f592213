import ConcurrencyKit
import ExampleApp
import Journal
import Logging
import ReMVVM
@testable import ReMVVMServer
import Testing

/// ``CommitGate``: a reduce passes the gate only once the journal made it durable, in version
/// order, however many versions one commit releases.
@Suite struct CommitGateTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func publicationsWaitForTheirCommitThenPassInVersionOrder() throws {
        let storage = MemoryJournalStorage()
        storage.holdCommits()
        let store = try Store.example()
        let journal = GroupCommitJournal(storage: storage, lastVersion: 0)
        let gate = CommitGate(
            store: store, journal: journal, codec: ActionJournalCodec(registry: ExampleApp.actions), history: nil, logger: Self.logger
        )
        journal.onDurable { version in gate.release(through: version) }
        try #require(journal.start())
        defer { journal.stop() }
        let seen = Lock<[UInt64]>([])
        gate.addPublicationHandler { publication in
            seen.withLock { $0.append(publication.version) }
            seen.notifyAll()
        }

        _ = store.dispatchAndWait(action: Increase())
        #expect(storage.waitUntilACommitIsHeld(timeout: .seconds(10)), "the commit of version 1 is under way")
        for _ in 2...4 {
            _ = store.dispatchAndWait(action: Increase())
        }
        #expect(seen.withLock { $0 }.isEmpty, "nothing passes before its commit")
        #expect(gate.snapshot.version == 0)

        storage.releaseCommits()
        #expect(seen.wait(timeout: .seconds(10)) { $0.count == 4 })
        #expect(seen.withLock { $0 } == [1, 2, 3, 4], "one commit for version 1, one releasing 2...4 together, in order")
        #expect(gate.snapshot.version == 4)
        #expect(storage.appendCalls == 2)
    }

    @Test func aReleaseOfVersionsNotQueuedPassesNothing() throws {
        let store = try Store.example()
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0)
        let gate = CommitGate(
            store: store, journal: journal, codec: ActionJournalCodec(registry: ExampleApp.actions), history: nil, logger: Self.logger
        )
        let seen = Lock<[UInt64]>([])
        gate.addPublicationHandler { publication in seen.withLock { $0.append(publication.version) } }
        gate.release(through: 7)
        #expect(seen.withLock { $0 }.isEmpty)
        #expect(gate.snapshot.version == 0, "the committed state stays the store's own")
    }
}
