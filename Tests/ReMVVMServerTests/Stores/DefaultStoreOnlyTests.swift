import HTTPTestSupport
@testable import ReMVVMServer
import Testing

/// A service that serves `default` alone (no `serveStores(_:)`, as a library user's until it calls
/// it; docs/http-api.md, "Stores", "Not yet"): the management routes answer the `404` of a path
/// that does not exist — the thin client falls back to the root routes on it
/// (docs/navigation.md) —, `/stores/default/…` is the root's store, every other id `404`.
@Suite struct DefaultStoreOnlyTests {
    @Test(arguments: Transport.allCases)
    func theManagementRoutesAre404AndOnlyDefaultIsServed(transport: Transport) throws {
        let server = try LiveServer(transport: transport)
        for (method, path) in [("PUT", "/stores/room"), ("GET", "/stores/room"), ("DELETE", "/stores/room"), ("GET", "/stores"), ("PUT", "/stores/default")] {
            let response = try server.send(method: method, path: path)
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.problem?.type == "about:blank", "\(method) \(path): a path that is not there")
        }
        let posted = try server.send(
            method: "POST", path: "/stores/default/actions",
            headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(posted.bodyString == #"{"version":1}"#)
        #expect(try server.get("/state").bodyString == #"{"counter":1,"user":null}"#)
        let elsewhere = try server.send(
            method: "POST", path: "/stores/room/actions",
            headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(elsewhere.status == 404 && elsewhere.problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(server.store.version == 1)
    }
}
