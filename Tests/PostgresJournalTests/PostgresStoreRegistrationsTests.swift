import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// Many stores' snapshots registered in one transaction (a replica's stop, an idle sweep:
/// `docs/replicas.md`, "Many stores"), refusing what a registration of one store refuses.
@Suite(.serialized) struct PostgresStoreRegistrationsTests {
    private static func actions(_ count: Int) -> LogGroup {
        LogGroup(actions: (0..<count).map { LoggedAction(type: "increase", payload: [], time: 1_000 + Int64($0)) })
    }

    @Test func eachStoresSnapshotIsRegisteredWithNoProcessAndWhatOneRegistrationRefusesIsLeftOut() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        let (kept, moved, pruned) = (try StoreID("kept"), try StoreID("moved"), try StoreID("pruned"))
        for store in [kept, moved, pruned] {
            guard case .created = try log.create(store, limit: 100, at: 1) else { throw PostgresLogError(code: .corrupt, message: "not created") }
            _ = try log.append([Self.actions(10)], to: store)
        }
        _ = try log.register(replica: "r", instance: "this-process", snapshot: 2, of: kept)
        _ = try log.register(replica: "r", instance: "this-process", snapshot: 4, of: pruned)
        // Retention removed pruned's records through 8 (another replica's snapshot passed them, this
        // one's registration was forgotten): a snapshot of 5 could not be followed from the log.
        _ = try log.run("DELETE FROM remvvm_log WHERE store = 'pruned' AND version <= 8")

        let registered = try log.registerSnapshots(of: "r", [kept: 7, moved: 10, pruned: 5, try StoreID("gone"): 3, .default: 1])
        #expect(registered == [kept, moved])
        let rows = try log.run("SELECT store, snapshot_version, instance IS NULL FROM remvvm_replicas WHERE name = 'r' ORDER BY store")
        #expect(rows.rows == [["kept", "7", "t"], ["moved", "10", "t"]], "default's snapshot is past its head; gone does not exist; pruned's records after 5 are gone")
        #expect(try log.extent(of: kept) == SharedLogExtent(earliest: 1, head: 10), "nothing removed by registering")
    }

    @Test func manyStoresAreRegisteredInStatementsOfAThousand() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        var snapshots: [StoreID: UInt64] = [:]
        for index in 0..<(PostgresLog.registrationsPerStatement + 5) {
            let store = try StoreID("s\(index)")
            _ = try log.create(store, limit: 10_000, at: 1)
            snapshots[store] = 0
        }
        #expect(try log.registerSnapshots(of: "r", snapshots).count == snapshots.count)
        let count = try log.run("SELECT count(*) FROM remvvm_replicas WHERE name = 'r'")
        #expect(count.rows == [[String(snapshots.count)]])
    }
}
