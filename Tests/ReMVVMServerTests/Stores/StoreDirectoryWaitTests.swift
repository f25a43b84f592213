import ConcurrencyKit
import Foundation
import Journal
@testable import ReMVVMServer
import Testing

/// Requests that wait in the store directory (`docs/http-api.md`, "Stores"): for a delete (they
/// then find no store, or with autoCreateStores a new one) and for another request's load (past
/// the wait limit: unavailable).
@Suite struct StoreDirectoryWaitTests {
    @Test func aDeleteWaitsForTheRequestsHoldingTheStore() throws {
        let fixture = DirectoryFixture()
        try fixture.create("room")
        let room = try StoreID("room")
        let lease = try fixture.directory.lease(room, creating: false)
        let deleted = onAThread { try? fixture.directory.delete(room) }
        // The delete marks the store deleting first: a new request then waits for it.
        #expect(fixture.directory.waitUntilNotLoaded(room, timeout: .seconds(10)))
        let waited = onAThread {
            Result { () throws(StoreDirectoryError) in try fixture.directory.withStore(room, creating: false) { $0 } }
        }
        #expect(fixture.directory.waitForWaitingRequests(1, timeout: .seconds(10)))
        #expect(fixture.loader.log == ["load room"], "not ended while a request holds it")
        fixture.directory.release(lease)
        #expect(deleted.wait(timeout: .seconds(10)) { $0 == true })
        #expect(fixture.loader.log == ["load room", "end room"])
        // The request that waited for the delete finds no store (http-api.md, "Stores").
        #expect(waited.wait(timeout: .seconds(10)) { $0 != nil })
        #expect(throws: StoreDirectoryError.notFound(room)) { try waited.withLock { $0 }?.get() }
    }

    /// With autoCreateStores a write that waited for a delete gets a new store at version 0, not
    /// the deleted one.
    @Test func aWriteThatWaitedForADeleteGetsANewStoreWithAutoCreation() throws {
        let fixture = DirectoryFixture(autoCreate: true)
        try fixture.create("room")
        let room = try StoreID("room")
        let old = try fixture.directory.lease(room, creating: false)
        let deleted = onAThread { try? fixture.directory.delete(room) }
        #expect(fixture.directory.waitUntilNotLoaded(room, timeout: .seconds(10)))
        let made = onAThread { try? fixture.directory.withStore(room, creating: true) { $0.description } }
        #expect(fixture.directory.waitForWaitingRequests(1, timeout: .seconds(10)))
        fixture.directory.release(old)
        #expect(deleted.wait(timeout: .seconds(10)) { $0 == true })
        #expect(made.wait(timeout: .seconds(10)) { $0 != nil })
        let new = try #require(made.withLock { $0 } ?? nil)
        #expect(new.version == 0)
        #expect(new.incarnation != old.store.description.incarnation, "a new store, whose tags never match the old one's")
    }

    /// A request that waits longer than the directory's wait limit for another request's load
    /// gets `unavailable` (503 `store-unavailable`), and the load itself still completes.
    @Test func aRequestWaitingPastTheLimitForAnotherLoadIsUnavailable() throws {
        let fixture = DirectoryFixture(waitLimit: .milliseconds(200))
        try fixture.create("room")
        fixture.loader.hold()
        let loaded = Lock<Bool>(false)
        let loader = Thread {
            let result = (try? fixture.use("room")) != nil
            loaded.withLock { $0 = result }
            loaded.notifyAll()
        }
        loader.start()
        #expect(fixture.loader.waitForLoadsStarted(1))
        do {
            try fixture.use("room")
            Issue.record("a wait past the limit was served")
        } catch let error as StoreDirectoryError {
            guard case .unavailable(let id, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(id.rawValue == "room")
            #expect(reason.contains("longer than"), "\(reason)")
            // Over HTTP: 503 store-unavailable, to be retried (http-api.md, "Errors").
            let answer = Problem.store(error).response
            #expect(answer.status == 503 && answer.headers["Retry-After"] == "1")
            #expect(Problem.store(error).type == "urn:remvvm:problem:store-unavailable")
        }
        fixture.loader.release()
        #expect(loaded.wait(timeout: .seconds(10)) { $0 })
        #expect(try fixture.use("room").description.id.rawValue == "room", "served once loaded")
    }

    /// Runs `work` on a thread of its own; the lock gets its result (nil until then).
    private func onAThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) -> Lock<Value?> {
        let result = Lock<Value?>(nil)
        let thread = Thread {
            let value = work()
            result.withLock { $0 = value }
            result.notifyAll()
        }
        thread.start()
        return result
    }
}
