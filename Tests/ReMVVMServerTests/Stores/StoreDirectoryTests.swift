import ConcurrencyKit
import Foundation
import Journal
@testable import ReMVVMServer
import Testing

/// The store directory's rules (`docs/http-api.md`, "Stores"): load on first use, once; unload
/// least recently used and idle stores, never one in use or streaming; create, limit, delete.
@Suite struct StoreDirectoryTests {
    @Test func aStoreIsLoadedOnFirstUseAndServedLoadedAfterwards() throws {
        let fixture = DirectoryFixture()
        try fixture.create("room")
        #expect(!fixture.directory.isLoaded(try StoreID("room")))
        let first = try fixture.use("room")
        let second = try fixture.use("room")
        #expect(first === second)
        #expect(fixture.directory.isLoaded(try StoreID("room")))
        #expect(fixture.loader.log == ["load room"])
        #expect(fixture.directory.loadedCount == 2, "room and default")
    }

    @Test func theDefaultStoreIsServedWithoutALoad() throws {
        let fixture = DirectoryFixture()
        let store = try fixture.use("default")
        #expect(store.description.id == .default)
        #expect(fixture.loader.log.isEmpty)
    }

    @Test func requestsRacingForAnUnloadedStoreShareOneLoad() throws {
        let fixture = DirectoryFixture()
        try fixture.create("room")
        fixture.loader.hold()
        let racers = 8
        let results = Lock<[ObjectIdentifier]>([])
        let threads = (0..<racers).map { _ in
            Thread {
                if let store = try? fixture.use("room") {
                    results.withLock { $0.append(ObjectIdentifier(store)) }
                    results.notifyAll()
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(fixture.loader.waitForLoadsStarted(1))
        #expect(fixture.directory.waitForWaitingRequests(racers - 1, timeout: .seconds(10)), "the others wait for the first load")
        fixture.loader.release()
        #expect(results.wait(timeout: .seconds(10)) { $0.count == racers })
        #expect(Set(results.withLock { $0 }).count == 1, "every request got the same store")
        #expect(fixture.loader.log == ["load room"])
    }

    /// Three requests for `id`, whose load will fail, started on threads: the first loads (held),
    /// the other two wait for it. Returns where their errors go.
    private func threeRequestsWaitingOnAFailingLoad(of id: String, in fixture: DirectoryFixture) throws -> Lock<[StoreDirectoryError]> {
        try fixture.create(id)
        fixture.loader.fail(id)
        fixture.loader.hold()
        let failures = Lock<[StoreDirectoryError]>([])
        let threads = (0..<3).map { _ in
            Thread {
                do {
                    try fixture.use(id)
                } catch let error as StoreDirectoryError {
                    failures.withLock { $0.append(error) }
                    failures.notifyAll()
                } catch {}
            }
        }
        threads.forEach { $0.start() }
        #expect(fixture.loader.waitForLoadsStarted(1))
        #expect(fixture.directory.waitForWaitingRequests(2, timeout: .seconds(10)))
        return failures
    }

    @Test func aFailedLoadAnswersItsWaitersUnavailableAndTheNextRequestTriesAgain() throws {
        let fixture = DirectoryFixture()
        let failures = try threeRequestsWaitingOnAFailingLoad(of: "room", in: fixture)
        fixture.loader.release()
        #expect(failures.wait(timeout: .seconds(10)) { $0.count == 3 })
        for failure in failures.withLock({ $0 }) {
            guard case .unavailable(let id, let reason) = failure else {
                Issue.record("expected unavailable, got \(failure)")
                continue
            }
            #expect(id.rawValue == "room" && reason.contains("test failure of room"))
        }
        #expect(fixture.loader.log == ["fail room"], "one load for the three requests")
        #expect(!fixture.directory.isLoaded(try StoreID("room")))
        fixture.loader.succeed("room")
        try fixture.use("room")
        #expect(fixture.loader.log == ["fail room", "load room"])
    }

    /// A store deleted (on another replica) while it loads here fails the load; the catalog then
    /// knows it is gone: its requests answer 404, as every later one does, not 503.
    @Test func aStoreDeletedWhileItLoadsAnswersNotFound() throws {
        let fixture = DirectoryFixture()
        let failures = try threeRequestsWaitingOnAFailingLoad(of: "room", in: fixture)
        #expect(fixture.catalog.delete(try StoreID("room")))
        fixture.loader.release()
        #expect(failures.wait(timeout: .seconds(10)) { $0.count == 3 })
        let room = try StoreID("room")
        #expect(failures.withLock { $0 } == [.notFound(room), .notFound(room), .notFound(room)])
        #expect(fixture.loader.log == ["fail room"], "one load")
        #expect(fixture.loader.deletedIDs == ["room"], "what the loader kept of it goes")
    }

    @Test func aReadNeverCreatesAStoreAndAWriteCreatesItOnlyWithAutoCreation() throws {
        let off = DirectoryFixture(autoCreate: false)
        #expect(throws: StoreDirectoryError.notFound(try StoreID("room"))) { try off.use("room", creating: true) }
        let on = DirectoryFixture(autoCreate: true)
        #expect(throws: StoreDirectoryError.notFound(try StoreID("room"))) { try on.use("room", creating: false) }
        #expect(on.catalog.describe(try StoreID("room")) == nil)
        let created = try on.use("room", creating: true)
        #expect(created.description.id.rawValue == "room" && created.description.version == 0)
        #expect(on.catalog.count() == 2)
    }

    @Test func creationPastMaxStoresIsRefusedAndCreatesNothing() throws {
        let fixture = DirectoryFixture(autoCreate: true, maxStores: 2)
        try fixture.create("a")
        #expect(throws: StoreDirectoryError.limitReached(limit: 2)) { try fixture.directory.create(StoreID("b")) }
        #expect(throws: StoreDirectoryError.limitReached(limit: 2)) { try fixture.use("b", creating: true) }
        #expect(fixture.catalog.count() == 2)
        if case .existed = try fixture.directory.create(StoreID("a")) {} else { Issue.record("a exists: no limit applies") }
    }

    @Test func pastMaxLoadedTheLeastRecentlyUsedStoreIsUnloaded() throws {
        let fixture = DirectoryFixture(maxLoaded: 3)
        try fixture.create("a", "b", "c")
        try fixture.use("a")
        try fixture.use("b")
        try fixture.use("a")  // b is now the least recently used
        try fixture.use("c")
        #expect(fixture.loader.log == ["load a", "load b", "load c", "unload b"])
        #expect(!fixture.directory.isLoaded(try StoreID("b")))
        #expect(fixture.directory.loadedCount == 3)
        try fixture.use("b")
        #expect(fixture.loader.log == ["load a", "load b", "load c", "unload b", "load b", "unload a"])
    }

    @Test func aStoreWithOpenStreamsOrHeldByARequestStaysLoadedPastTheLimit() throws {
        let fixture = DirectoryFixture(maxLoaded: 2)
        try fixture.create("streaming", "held", "next")
        let streaming = try fixture.use("streaming")
        streaming.openStreams.withLock { $0 = 1 }
        let held = try fixture.directory.lease(StoreID("held"), creating: false)
        try fixture.use("next")
        #expect(fixture.loader.log == ["load streaming", "load held", "load next"], "nothing could be unloaded")
        #expect(fixture.directory.loadedCount == 4)
        fixture.directory.release(held)
        streaming.openStreams.withLock { $0 = 0 }
        try fixture.use("next")
        #expect(fixture.loader.log == ["load streaming", "load held", "load next"], "a hit unloads nothing")
        try fixture.create("last")
        try fixture.use("last")
        #expect(fixture.loader.log == [
            "load streaming", "load held", "load next", "load last", "unload streaming", "unload held", "unload next",
        ])
    }

    @Test func aStoreIdleForTheIdleTimeIsUnloadedWithoutSleeping() throws {
        let fixture = DirectoryFixture(idleSeconds: 300)
        try fixture.create("quiet", "busy", "streaming")
        try fixture.use("quiet")
        let streaming = try fixture.use("streaming")
        streaming.openStreams.withLock { $0 = 1 }
        fixture.clock.advance(seconds: 200)
        try fixture.use("busy")
        #expect(fixture.directory.unloadIdleStores() == 0)
        fixture.clock.advance(seconds: 100)
        #expect(fixture.directory.unloadIdleStores() == 1)
        #expect(fixture.loader.log == ["load quiet", "load streaming", "load busy", "unload quiet"])
        // The streaming store's idle time starts when its stream ends (seen by a sweep).
        streaming.openStreams.withLock { $0 = 0 }
        fixture.clock.advance(seconds: 299)
        #expect(fixture.directory.unloadIdleStores() == 1, "busy, idle for 399 s")
        fixture.clock.advance(seconds: 300)
        #expect(fixture.directory.unloadIdleStores() == 1)
        #expect(fixture.loader.log.suffix(2) == ["unload busy", "unload streaming"])
        #expect(fixture.directory.loadedCount == 1, "default stays")
        #expect(fixture.directory.sweepInterval == .seconds(30))
    }

    @Test func aServerInMemoryNeverUnloads() throws {
        let fixture = DirectoryFixture(unloads: false, maxLoaded: 1, idleSeconds: 1)
        try fixture.create("a", "b")
        try fixture.use("a")
        try fixture.use("b")
        fixture.clock.advance(seconds: 3_600)
        #expect(fixture.directory.unloadIdleStores() == 0)
        #expect(fixture.directory.loadedCount == 3)
        #expect(fixture.directory.sweepInterval == nil)
        #expect(fixture.loader.log == ["load a", "load b"])
    }

    @Test func deletingEndsTheLoadedStoreAndAReCreatedOneHasANewIncarnation() throws {
        let fixture = DirectoryFixture()
        try fixture.create("room")
        let old = try fixture.use("room")
        #expect(try fixture.directory.delete(StoreID("room")))
        #expect(fixture.loader.log == ["load room", "end room"])
        #expect(!fixture.directory.isLoaded(try StoreID("room")))
        #expect(throws: StoreDirectoryError.notFound(try StoreID("room"))) { try fixture.use("room") }
        #expect(try !fixture.directory.delete(StoreID("room")), "a second delete finds nothing")
        try fixture.create("room")
        let new = try fixture.use("room")
        #expect(new !== old)
        #expect(new.description.incarnation != old.description.incarnation)
        #expect(new.description.version == 0)
    }

    @Test func theDefaultStoreCannotBeDeleted() throws {
        let fixture = DirectoryFixture()
        #expect(throws: StoreDirectoryError.defaultCannotBeDeleted) { try fixture.directory.delete(.default) }
        #expect(fixture.catalog.describe(.default) != nil)
    }

    @Test func unloadingAllPutsAwayEveryStoreButDefault() throws {
        let fixture = DirectoryFixture()
        try fixture.create("a", "b")
        try fixture.use("a")
        let b = try fixture.use("b")
        b.openStreams.withLock { $0 = 1 }
        fixture.directory.unloadAll()
        #expect(fixture.loader.log == ["load a", "load b", "unload a", "unload b"])
        #expect(fixture.directory.loadedCount == 1)
    }

    @Test func listingLeavesOutWhatIsNotVisibleAndPagesOnTheLastIdShown() throws {
        let fixture = DirectoryFixture()
        try fixture.create("room-1", "room-2", "room-3", "room-4", "doc-1")
        try fixture.use("room-2")
        let first = try fixture.directory.list(prefix: "room-", after: nil, limit: 2) { $0.rawValue != "room-1" }
        #expect(first.stores.map(\.description.id.rawValue) == ["room-2", "room-3"])
        #expect(first.stores.map(\.loaded) == [true, false])
        #expect(first.next?.rawValue == "room-3")
        let second = try fixture.directory.list(prefix: "room-", after: first.next, limit: 2) { $0.rawValue != "room-1" }
        #expect(second.stores.map(\.description.id.rawValue) == ["room-4"])
        #expect(second.next == nil)
        let exact = try fixture.directory.list(prefix: "", after: nil, limit: 3)
        #expect(exact.stores.map(\.description.id.rawValue) == ["default", "doc-1", "room-1"])
        #expect(exact.next?.rawValue == "room-1")
        let none = try fixture.directory.list(prefix: "", after: nil, limit: 10) { _ in false }
        #expect(none.stores.isEmpty && none.next == nil)
    }

    /// A catalog that counts the pages asked of it.
    final class CountingCatalog: StoreCatalog {
        let inner: MemoryStoreCatalog
        let pages = Lock(0)
        init(_ inner: MemoryStoreCatalog) { self.inner = inner }
        func describe(_ id: StoreID) throws(JournalError) -> StoreDescription? { inner.describe(id) }
        func create(_ id: StoreID, limit: Int, at time: Int64) throws(JournalError) -> StoreCreation { inner.create(id, limit: limit, at: time) }
        func list(prefix: String, after: StoreID?, limit: Int) throws(JournalError) -> [StoreDescription] {
            pages.withLock { $0 += 1 }
            return inner.list(prefix: prefix, after: after, limit: limit)
        }
        func delete(_ id: StoreID) throws(JournalError) -> Bool { inner.delete(id) }
        func count() throws(JournalError) -> Int { inner.count() }
    }

    /// A token that reaches few of many stores lists them in pages of the catalog, not a row or
    /// two at a time; the pages and `next` are as with every store visible.
    @Test func listingFewVisibleAmongManyReadsTheCatalogInLargePages() throws {
        let memory = MemoryStoreCatalog(createdAt: 0)
        for n in 0..<1_000 { _ = try memory.create(StoreID("s\(1_000 + n)"), limit: 10_000, at: 0) }
        let catalog = CountingCatalog(memory)
        let directory = StoreDirectory(
            defaultStore: TestStoreLoader.TestStore(description: memory.describe(.default)!), catalog: catalog,
            loader: TestStoreLoader(unloads: true), limits: StoreLimits(autoCreate: false, maxStores: 10_000, maxLoaded: 100, idleTime: nil),
            now: { 0 }
        )
        let visible: Set<String> = ["s1150", "s1500", "s1501", "s1999"]
        var listed: [String] = []
        var after: StoreID?
        var calls = 0
        repeat {
            let page = try directory.list(prefix: "s", after: after, limit: 1) { visible.contains($0.rawValue) }
            listed += page.stores.map(\.description.id.rawValue)
            after = page.next
            calls += 1
        } while after != nil && calls < 10
        #expect(listed == ["s1150", "s1500", "s1501", "s1999"])
        #expect(calls == 4, "the last page, with s1999, knows nothing follows")
        let pages = catalog.pages.withLock { $0 }
        // A full page reads on to the next store in reach (only then has it a next page: the
        // listing tells nothing of the stores out of reach), which the next listing reads again:
        // each row at most twice, in pages of at least 101.
        #expect(pages <= 2 * (1_000 / 101 + 1) + 4, "\(pages) pages of the catalog for 4 listings over 1,000 stores")
    }
}
