import Foundation
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// A replica's clean stop with many stores loaded (`docs/replicas.md`, "Many stores"): each
/// store's last snapshot is written locally and registered in the log — all of them in one
/// transaction — and a replica started again on the directory loads each store from it, then
/// applies the log's records after it.
@Suite(.serialized) struct ReplicaStopTests {
    private static let increase = #"{"type":"increase"}"#

    private static func ready(_ replica: ReplicaStoresTests.StoreReplica) throws {
        let ready = waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 }
        try #require(ready, "the replica did not reach the log")
    }

    private static func counter(_ response: TestHTTPResponse) -> Int? {
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (json?["counter"] as? NSNumber)?.intValue
    }

    @Test func aReplicaStoppedWithStoresLoadedRegistersEachSnapshotAndLoadsThemBack() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-replica-stop")
        let a = try ReplicaStoresTests.StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/a", name: "a")
        var b: ReplicaStoresTests.StoreReplica? = try ReplicaStoresTests.StoreReplica(
            conninfo: postgres.conninfo, directory: root.path + "/b", name: "b"
        )
        try Self.ready(a)
        try Self.ready(try #require(b))
        let ids = (1...6).map { "room-\($0)" }
        for (index, id) in ids.enumerated() {
            #expect(try a.send("PUT", "/stores/\(id)").status == 201)
            let actions = "[" + Array(repeating: Self.increase, count: index + 1).joined(separator: ",") + "]"
            #expect(try b?.send("POST", "/stores/\(id)/actions", body: actions).bodyString == #"{"version":\#(index + 1)}"#)
        }
        b?.server.shutdown()
        b = nil

        let connection = try PostgresConnection(conninfo: postgres.conninfo)
        defer { connection.close() }
        let registered = try connection.execute(
            "SELECT store, snapshot_version, instance IS NULL FROM remvvm_replicas WHERE name = 'b' AND store <> 'default' ORDER BY store"
        )
        #expect(registered.rows == ids.enumerated().map { [$1, String($0 + 1), "t"] }, "each store's last snapshot, the name released")

        // Written on A while B is down: B started again loads each store from its snapshot and
        // applies what the log holds after it.
        for id in ids { #expect(try a.send("POST", "/stores/\(id)/actions", body: Self.increase).status == 200) }
        let again = try ReplicaStoresTests.StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/b", name: "b")
        try Self.ready(again)
        for (index, id) in ids.enumerated() {
            let snapshot = try again.file.storage(for: StoreID(id))?.snapshot(atOrBefore: .max)
            #expect(snapshot?.version == UInt64(index + 1), "\(id)'s snapshot was written at the stop")
            let state = try again.send("GET", "/stores/\(id)/state")
            #expect(state.status == 200 && Self.counter(state) == index + 2, "\(id): \(state.bodyString)")
            #expect(state.headers["ETag"]?.hasPrefix("\"\(index + 2)-") == true)
        }
    }
}
