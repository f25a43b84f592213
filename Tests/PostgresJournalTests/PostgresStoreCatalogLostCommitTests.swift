import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// A creation or deletion of a store whose connection breaks while its `COMMIT` is on its way
/// (``PostgresProxy`` loses the answer): answered as what happened, read back on a new
/// connection — never as the same change run a second time.
@Suite struct PostgresStoreCatalogLostCommitTests {
    private let room = StoreID.make("room-1")

    /// A PostgreSQL, a proxy in front of it, and a shared log reached through the proxy (its
    /// reading connection open), stopped when the fixture goes.
    private final class Fixture {
        let server: PostgresServer
        let proxy: PostgresProxy
        let log: PostgresSharedLog

        init() throws {
            server = try PostgresServer()
            proxy = try PostgresProxy(to: server)
            log = try PostgresSharedLog(conninfo: proxy.conninfo, patience: .seconds(10))
            _ = try log.describe(.default)
        }

        deinit { log.stop() }
    }

    @Test func aCreationThatCommittedThoughItsAnswerWasLostIsAnsweredCreated() throws {
        let fixture = try Fixture()
        fixture.proxy.loseNextCommit(after: "INSERT INTO remvvm_head", .afterTheServerAnswered)
        let creation = try fixture.log.create(room, limit: 10, at: 1_000)
        #expect(fixture.proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"), "the server committed the creation")
        let stored = try #require(try fixture.log.describe(room))
        #expect(creation == .created(stored), "not .existed: the store this creation made")
    }

    @Test func aDeletionThatCommittedThoughItsAnswerWasLostIsAnsweredDeleted() throws {
        let fixture = try Fixture()
        guard case .created = try fixture.log.create(room, limit: 10, at: 1_000) else {
            Issue.record("room-1 should be created")
            return
        }
        fixture.proxy.loseNextCommit(after: "DELETE FROM remvvm_head", .afterTheServerAnswered)
        #expect(try fixture.log.delete(room), "not false: the deletion removed the store")
        #expect(fixture.proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"), "the server committed the deletion")
        #expect(try fixture.log.describe(room) == nil)
    }

    @Test func aCreationWhoseCommitNeverReachedTheServerIsRunAgain() throws {
        let fixture = try Fixture()
        fixture.proxy.loseNextCommit(after: "INSERT INTO remvvm_head", .beforeTheServer)
        let creation = try fixture.log.create(room, limit: 10, at: 1_000)
        #expect(fixture.proxy.waitUntilLost(timeout: .seconds(10)) == (true, nil))
        let stored = try #require(try fixture.log.describe(room))
        #expect(creation == .created(stored))
        #expect(try fixture.log.count() == 2)
    }

    @Test func aDeletionWhoseCommitNeverReachedTheServerIsRunAgain() throws {
        let fixture = try Fixture()
        _ = try fixture.log.create(room, limit: 10, at: 1_000)
        fixture.proxy.loseNextCommit(after: "DELETE FROM remvvm_head", .beforeTheServer)
        #expect(try fixture.log.delete(room))
        #expect(fixture.proxy.waitUntilLost(timeout: .seconds(10)) == (true, nil))
        #expect(try fixture.log.describe(room) == nil)
    }

    @Test(arguments: [true, false])
    func aLostCommitThatCannotBeReadBackIsOutcomeUnknown(creating: Bool) throws {
        let fixture = try Fixture()
        if !creating { _ = try fixture.log.create(room, limit: 10, at: 1_000) }
        fixture.proxy.loseNextCommit(
            after: creating ? "INSERT INTO remvvm_head" : "DELETE FROM remvvm_head", .afterTheServerAnswered, thenRefuseConnections: true
        )
        let error = #expect(throws: JournalError.self) {
            if creating { _ = try fixture.log.create(room, limit: 10, at: 1_000) } else { _ = try fixture.log.delete(room) }
        }
        #expect(error?.code == .outcomeUnknown, "\(String(describing: error))")
        #expect(fixture.proxy.waitUntilLost(timeout: .seconds(10)) == (true, "C"))
        let direct = try PostgresLog(conninfo: fixture.server.conninfo)
        defer { direct.close() }
        #expect((try direct.describe(room) != nil) == creating, "the change committed all the same")
    }
}
