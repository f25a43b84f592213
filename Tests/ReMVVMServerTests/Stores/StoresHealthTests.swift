import Foundation
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// `/healthz`, `/stats` and `/metrics` cover every loaded store, not `default` alone
/// (`docs/http-api.md`, "Operations"): a replica's store that stopped following the log makes the
/// server unhealthy, named in `/healthz`, counted in `/stats` and `remvvm_stores_unhealthy`,
/// while `default`'s own fields stay as they were.
@Suite(.serialized) struct StoresHealthTests {
    private static func json(_ response: TestHTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// The object `field` of `response`'s JSON body, its numbers as integers.
    private static func figures(_ response: TestHTTPResponse, _ field: String) -> [String: Int] {
        let object = json(response)[field] as? [String: Any] ?? [:]
        return object.compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    @Test func aLoadedStoreThatStoppedFollowingTheLogMakesTheReplicaUnhealthyAndIsNamed() throws {
        let postgres = try PostgresServer()
        let root = try TemporaryDirectory(prefix: "remvvm-stores-health")
        let replica = try ReplicaStoresTests.StoreReplica(conninfo: postgres.conninfo, directory: root.path + "/a", name: "a")
        #expect(waitUntil(timeout: .seconds(30)) { (try? replica.send("GET", "/healthz").status) == 200 })
        for id in ["broken", "fine"] { #expect(try replica.send("PUT", "/stores/\(id)").status == 201) }
        #expect(try replica.send("POST", "/stores/broken/actions", body: #"{"type":"increase"}"#).status == 200)
        #expect(try replica.send("GET", "/stores/fine/state").status == 200)

        let healthy = try replica.send("GET", "/healthz")
        #expect(healthy.status == 200)
        let expected: [String: Int] = ["loaded": 3, "unhealthy": 0]
        #expect(Self.figures(healthy, "stores") == expected, "\(healthy.bodyString)")
        let stats = Self.figures(try replica.send("GET", "/stats"), "stores")
        let expectedStats: [String: Int] = ["loaded": 3, "unhealthy": 0, "maxLagVersions": 0]
        #expect(stats == expectedStats)

        // A record this build cannot decode, appended to one store behind the replicas' backs: the
        // log stops following that store (it stays loaded, answering writes 503).
        let admin = try PostgresConnection(conninfo: postgres.conninfo)
        defer { admin.close() }
        _ = try admin.execute("INSERT INTO remvvm_log (store, version, type, payload, time) VALUES ('broken', 2, 'no-such-action', '{}', 0)")
        _ = try admin.execute("UPDATE remvvm_head SET version = 2 WHERE store = 'broken'")
        _ = try admin.execute("NOTIFY remvvm_log, 'broken:2'")
        #expect(waitUntil(timeout: .seconds(15)) { (try? replica.send("GET", "/healthz").status) == 503 })

        let unhealthy = try replica.send("GET", "/healthz")
        let body = Self.json(unhealthy)
        #expect(body["status"] as? String == "ok", "default's own status: \(unhealthy.bodyString)")
        let counts = Self.figures(unhealthy, "stores")
        #expect(counts["loaded"] == 3 && counts["unhealthy"] == 1)
        let stores = try #require(body["stores"] as? [String: Any])
        let failing = try #require(stores["failing"] as? [[String: String]])
        let ids = failing.compactMap { $0["id"] }
        #expect(ids == ["broken"])
        #expect(failing.first?["status"] == "stopped")
        let reason = failing.first?["reason"] ?? ""
        #expect(reason.contains("version 2"), "\(failing)")
        #expect(try replica.send("POST", "/stores/fine/actions", body: #"{"type":"increase"}"#).status == 200, "the other stores serve on")

        let after = Self.figures(try replica.send("GET", "/stats"), "stores")
        #expect(after["unhealthy"] == 1)
        let metrics = try replica.send("GET", "/metrics").bodyString
        #expect(metricSample(metrics, "remvvm_stores_unhealthy") == 1)
        #expect(metricSample(metrics, "remvvm_stores_lag_versions_max") != nil)
        #expect(metricSample(metrics, "remvvm_replica_following") == 1, "default's own gauge")
    }
}
