import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// A creation or deletion of a store whose connection breaks while its `COMMIT` is on its way
/// (``PostgresProxy`` loses the answer): answered as what happened, read back on a new
/// connection — never as the same change run a second time.
@Suite struct PostgresStoreCatalogLostCommitTests {
    private let room = StoreID.make("room-1")

    /// A shared log reached through `proxy`, its reading connection open.
    private func log(through proxy: PostgresProxy) throws -> PostgresSharedLog {
        let log = try PostgresSharedLog(conninfo: proxy.conninfo, patience: .seconds(10))
        _ = try log.describe(.default)
        return log
    }

    @Test func aCreationThatCommittedThoughItsAnswerWasLostIsAnsweredCreated() throws {
        let server = try PostgresServer()
        let proxy = try PostgresProxy(to: server)
        let log = try log(through: proxy)
        defer { log.stop() }
        proxy.loseNextCommit(after: "INSERT INTO remvvm_head", .afterTheServerAnswered)
        let creation = try log.create(room, limit: 10, at: 1_000)
        #expect(proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"), "the server committed the creation")
        let stored = try #require(try log.describe(room))
        #expect(creation == .created(stored), "not .existed: the store this creation made")
    }

    @Test func aDeletionThatCommittedThoughItsAnswerWasLostIsAnsweredDeleted() throws {
        let server = try PostgresServer()
        let proxy = try PostgresProxy(to: server)
        let log = try log(through: proxy)
        defer { log.stop() }
        guard case .created = try log.create(room, limit: 10, at: 1_000) else {
            Issue.record("room-1 should be created")
            return
        }
        proxy.loseNextCommit(after: "DELETE FROM remvvm_head", .afterTheServerAnswered)
        #expect(try log.delete(room), "not false: the deletion removed the store")
        #expect(proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"), "the server committed the deletion")
        #expect(try log.describe(room) == nil)
    }

    @Test func aCreationWhoseCommitNeverReachedTheServerIsRunAgain() throws {
        let server = try PostgresServer()
        let proxy = try PostgresProxy(to: server)
        let log = try log(through: proxy)
        defer { log.stop() }
        proxy.loseNextCommit(after: "INSERT INTO remvvm_head", .beforeTheServer)
        let creation = try log.create(room, limit: 10, at: 1_000)
        #expect(proxy.waitUntilLost(timeout: .seconds(10)) == (true, nil))
        let stored = try #require(try log.describe(room))
        #expect(creation == .created(stored))
        #expect(try log.count() == 2)
    }

    @Test func aDeletionWhoseCommitNeverReachedTheServerIsRunAgain() throws {
        let server = try PostgresServer()
        let proxy = try PostgresProxy(to: server)
        let log = try log(through: proxy)
        defer { log.stop() }
        _ = try log.create(room, limit: 10, at: 1_000)
        proxy.loseNextCommit(after: "DELETE FROM remvvm_head", .beforeTheServer)
        #expect(try log.delete(room))
        #expect(proxy.waitUntilLost(timeout: .seconds(10)) == (true, nil))
        #expect(try log.describe(room) == nil)
    }

    @Test(arguments: [true, false])
    func aLostCommitThatCannotBeReadBackIsOutcomeUnknown(creating: Bool) throws {
        let server = try PostgresServer()
        let proxy = try PostgresProxy(to: server)
        let log = try log(through: proxy)
        defer { log.stop() }
        if !creating { _ = try log.create(room, limit: 10, at: 1_000) }
        proxy.loseNextCommit(
            after: creating ? "INSERT INTO remvvm_head" : "DELETE FROM remvvm_head", .afterTheServerAnswered, thenRefuseConnections: true
        )
        let error = #expect(throws: JournalError.self) {
            if creating { _ = try log.create(room, limit: 10, at: 1_000) } else { _ = try log.delete(room) }
        }
        #expect(error?.code == .outcomeUnknown, "\(String(describing: error))")
        #expect(proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"))
        let direct = try PostgresLog(conninfo: server.conninfo)
        defer { direct.close() }
        #expect((try direct.describe(room) != nil) == creating, "the change committed all the same")
    }
}
