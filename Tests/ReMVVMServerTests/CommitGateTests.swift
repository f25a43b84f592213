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

    /// A handler added with a demand (the hubs') is left out of the releases while the demand is
    /// unset — not called at all, so a store nobody follows touches no hub — and put back, after
    /// the handlers before it, as soon as it is set.
    @Test func aHandlerWhoseDemandIsUnsetIsLeftOutOfTheReleases() throws {
        let store = try Store.example()
        let journal = GroupCommitJournal(storage: MemoryJournalStorage(), lastVersion: 0)
        let gate = CommitGate(
            store: store, journal: journal, codec: ActionJournalCodec(registry: ExampleApp.actions), history: nil, logger: Self.logger
        )
        journal.onDurable { version in gate.release(through: version) }
        try #require(journal.start())
        defer { journal.stop() }
        let seen = Lock<[String]>([])
        let demand = PublicationDemand()
        gate.addPublicationHandler({ publication in seen.withLock { $0.append("wanted \(publication.version)") } }, demand: demand)
        gate.addPublicationHandler { publication in seen.withLock { $0.append("always \(publication.version)") } }
        // The release runs before the commit's waiters are told.
        func dispatchDurably() {
            _ = store.dispatchAndWait(action: Increase())
            #expect(journal.waitUntilDurable(store.version, timeout: .seconds(10)) == .success(store.version))
        }

        dispatchDurably()
        demand.set(true)
        dispatchDurably()
        demand.set(false)
        dispatchDurably()
        #expect(seen.withLock { $0 } == ["always 1", "wanted 2", "always 2", "always 3"])
    }
}
