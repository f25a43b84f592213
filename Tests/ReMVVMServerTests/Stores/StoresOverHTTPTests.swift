import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import ReMVVMServer
import Testing

/// Many stores over HTTP (`docs/http-api.md`, "Stores"): each store its own versions, tags and
/// streams; the management routes; auto-creation, limits and deletion.
@Suite struct StoresOverHTTPTests {
    @Test(arguments: Transport.allCases)
    func eachStoreHasItsOwnStateVersionsAndTags(transport: Transport) throws {
        let server = try StoresServer(transport: transport)
        #expect(try server.send("PUT", "/stores/room-1").status == 201)
        #expect(try server.send("PUT", "/stores/room-2").status == 201)
        #expect(try server.increase("room-1", times: 3).bodyString == #"{"version":3}"#)
        #expect(try server.increase("room-2").bodyString == #"{"version":1}"#)
        #expect(try server.send("GET", "/state").bodyString == #"{"counter":0,"user":null}"#)
        let room1 = try server.send("GET", "/stores/room-1/state")
        #expect(room1.bodyString == #"{"counter":3,"user":null}"#)
        let incarnation = try #require(server.catalog.describe(try StoreID("room-1"))?.incarnation)
        #expect(room1.headers["ETag"] == "\"3-\(incarnation)\"")
        #expect(try server.send("GET", "/stores/room-2/state").bodyString == #"{"counter":1,"user":null}"#)
        // A tag of one store never matches in another, even at the same version.
        let room2Tag = try #require(try server.send("GET", "/stores/room-2/state").headers["ETag"])
        #expect(try server.send("GET", "/stores/room-1/state", headers: [("If-None-Match", room2Tag)]).status == 200)
        // The root routes and /stores/default are one store.
        _ = try server.send("POST", "/stores/default/actions", body: #"{"type":"increase"}"#)
        #expect(try server.send("GET", "/state").bodyString == #"{"counter":1,"user":null}"#)
        let described = try server.send("GET", "/stores/room-1").decoded(StoreDescriptionBody.self)
        #expect(described.id == "room-1" && described.version == 3 && described.loaded && described.lastActionAt != nil)
    }

    @Test func aStoreThatDoesNotExistIs404AndOnlyAWriteCreatesItWithAutoCreation() throws {
        let off = try StoresServer()
        let absent = try off.send("GET", "/stores/room/state")
        #expect(absent.status == 404 && absent.problem?.type == "urn:remvvm:problem:store-not-found")
        #expect(try off.increase("room").status == 404)
        #expect(try off.send("GET", "/stores/room").status == 404)
        let on = try StoresServer(autoCreate: true)
        #expect(try on.send("GET", "/stores/room/state").status == 404, "a read never creates")
        #expect(try on.send("GET", "/stores/room/events").status == 404)
        #expect(on.catalog.count() == 1)
        #expect(try on.increase("room").bodyString == #"{"version":1}"#)
        #expect(try on.send("POST", "/stores/room2/viewmodels/counter/commands/increase").status < 300)
        #expect(on.catalog.count() == 3)
    }

    /// A write to a missing store creates it only when it would not be refused: a bad request
    /// makes no store and does not count towards `maxStores` (http-api.md: "a bad request never
    /// changes state").
    @Test(arguments: Transport.allCases)
    func aRefusedWriteCreatesNoStoreWithAutoCreation(transport: Transport) throws {
        let server = try StoresServer(transport: transport, autoCreate: true, maxStores: 2)
        let refused: [(String, String, [(String, String)], String, Int)] = [
            ("not JSON", "/stores/a/actions", [("Content-Type", "text/plain")], "", 415),
            ("broken JSON", "/stores/a/actions", [], "{", 400),
            ("unknown action", "/stores/a/actions", [], #"{"type":"nope"}"#, 422),
            ("bad Idempotency-Key", "/stores/a/actions", [("Idempotency-Key", "a b")], #"{"type":"increase"}"#, 400),
            ("unknown command", "/stores/a/viewmodels/counter/commands/nope", [], "", 404),
            ("unknown view model", "/stores/a/viewmodels/nope/commands/increase", [], "", 404),
            ("command body not JSON", "/stores/a/viewmodels/counter/commands/increase", [("Content-Type", "text/plain")], "", 415),
        ]
        for (what, path, headers, body, status) in refused {
            let response = try server.send("POST", path, headers: headers, body: body)
            #expect(response.status == status, "\(what): \(response.bodyString)")
            #expect(response.problem?.type != "urn:remvvm:problem:store-limit-reached", "\(what)")
        }
        #expect(server.catalog.count() == 1, "only default: no refused write made a store")
        // `If-Match` holds only for a store that exists: `*` and a tag alike are 412, creating nothing.
        for ifMatch in ["*", #""0""#] {
            for path in ["/stores/a/actions", "/stores/a/viewmodels/counter/commands/increase"] {
                let body = path.hasSuffix("actions") ? #"{"type":"increase"}"# : ""
                let response = try server.send("POST", path, headers: [("If-Match", ifMatch)], body: body)
                #expect(response.status == 412 && response.problem?.type == "urn:remvvm:problem:version-mismatch", "\(ifMatch) \(path): \(response.bodyString)")
                #expect(response.headers["ETag"] == nil)
            }
        }
        #expect(server.catalog.count() == 1, "a write with If-Match made no store")
        #expect(try server.send("GET", "/stores/a").status == 404)
        // The one store maxStores leaves room for is still free, and a good write makes it.
        #expect(try server.increase("a").bodyString == #"{"version":1}"#)
        // An existing store refuses the same requests as before.
        #expect(try server.send("POST", "/stores/a/actions", body: "{").status == 400)
        #expect(try server.send("POST", "/stores/b/actions", body: #"{"type":"increase"}"#).status == 507)
    }

    /// A page of a listed origin manages stores as curl does: the preflight allows `PUT` and
    /// `DELETE`, and the page may read where `PUT` made the store; another origin may not write.
    @Test(arguments: Transport.allCases)
    func aPageFromAListedOriginMayCreateAndDeleteStores(transport: Transport) throws {
        let app = "https://app.example.com"
        let server = try StoresServer(transport: transport, corsAllowedOrigins: [app])
        for method in ["PUT", "DELETE"] {
            let preflight = try server.send("OPTIONS", "/stores/room", headers: [
                ("Origin", app), ("Access-Control-Request-Method", method),
            ])
            #expect(preflight.status == 204)
            let methods = (preflight.headers["Access-Control-Allow-Methods"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(methods.contains(method), "\(methods)")
        }
        let page = [("Origin", app), ("Sec-Fetch-Site", "cross-site")]
        let put = try server.send("PUT", "/stores/room", headers: page)
        #expect(put.status == 201)
        #expect(put.headers["Location"] == "/stores/room")
        #expect(put.headers["Access-Control-Allow-Origin"] == app)
        let exposed = (put.headers["Access-Control-Expose-Headers"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(exposed.contains("Location"), "\(exposed)")
        #expect(try server.send("DELETE", "/stores/room", headers: page).status == 204)
        let other = try server.send("PUT", "/stores/room", headers: [("Origin", "https://evil.example.com"), ("Sec-Fetch-Site", "cross-site")])
        #expect(other.status == 403 && other.problem?.type == "urn:remvvm:problem:cross-origin-request-refused")
        #expect(server.catalog.count() == 1, "the refused PUT made nothing")
    }

    /// `405` on the store routes lists the methods of the path (as the OpenAPI document does);
    /// `DELETE /stores/default` is its own 405, which lists what the store default takes.
    @Test func aMethodAStoreDoesNotTakeIs405ListingTheOnesThatWork() throws {
        let server = try StoresServer()
        #expect(try server.send("PUT", "/stores/room").status == 201)
        for path in ["/stores/room", "/stores/default"] {
            let refused = try server.send("POST", path)
            #expect(refused.status == 405 && refused.headers["Allow"] == "GET, HEAD, PUT, DELETE", "\(path): \(refused.headers["Allow"] ?? "")")
        }
        let delete = try server.send("DELETE", "/stores/default")
        #expect(delete.status == 405 && delete.headers["Allow"] == "GET, HEAD, PUT")
        #expect(delete.problem?.type == "urn:remvvm:problem:default-store-undeletable")
        let list = try server.send("POST", "/stores")
        #expect(list.status == 405 && list.headers["Allow"] == "GET, HEAD", "\(list.headers["Allow"] ?? "")")
    }

    @Test func aBadStoreIdIs400NamingTheRule() throws {
        let server = try StoresServer()
        for path in ["/stores/-x/state", "/stores/-x"] {
            let response = try server.send("GET", path)
            #expect(response.status == 400)
            #expect(response.problem?.detail.contains(StoreIDError.badStart.rule) == true)
        }
    }

    @Test func creatingPastMaxStoresIs507ByPutAndByAutoCreation() throws {
        let server = try StoresServer(autoCreate: true, maxStores: 2)
        #expect(try server.send("PUT", "/stores/a").status == 201)
        let put = try server.send("PUT", "/stores/b")
        #expect(put.status == 507 && put.problem?.type == "urn:remvvm:problem:store-limit-reached")
        #expect(try server.increase("b").status == 507)
        #expect(try server.send("PUT", "/stores/a").status == 200, "an existing store is no creation")
    }

    @Test func putWithIfNoneMatchStarCreatesOnly() throws {
        let server = try StoresServer()
        #expect(try server.send("PUT", "/stores/a", headers: [("If-None-Match", "*")]).status == 201)
        #expect(try server.send("PUT", "/stores/a", headers: [("If-None-Match", "*")]).status == 412)
        #expect(try server.send("PUT", "/stores/default", headers: [("If-None-Match", "*")]).status == 412)
    }

    @Test func theListingPagesByIdWithinItsLimits() throws {
        let server = try StoresServer()
        for id in ["c", "a", "b"] { _ = try server.send("PUT", "/stores/\(id)") }
        struct Page: Decodable { var stores: [StoreDescriptionBody]; var next: String? }
        let first = try server.send("GET", "/stores?limit=2").decoded(Page.self)
        #expect(first.stores.map(\.id) == ["a", "b"] && first.next == "b")
        let rest = try server.send("GET", "/stores?limit=2&after=b").decoded(Page.self)
        #expect(rest.stores.map(\.id) == ["c", "default"] && rest.next == nil)
        #expect(try server.send("GET", "/stores?limit=1001").status == 400)
    }

    /// Without `limit` a page holds 100 stores, and `next` is the last id of that full page
    /// (docs/http-api.md, "Stores": `limit` 1–1000, default 100). In process, through the router.
    @Test func aListingWithoutALimitHoldsAHundredStores() throws {
        let server = try StoresServer(transport: .router)
        let ids = (0...100).map { "s" + String(repeating: "0", count: 3 - String($0).count) + String($0) }  // s000 … s100
        for id in ids.shuffled() {
            #expect(try server.send("PUT", "/stores/\(id)").status == 201, "\(id)")
        }
        struct Page: Decodable { var stores: [StoreDescriptionBody]; var next: String? }
        let first = try server.send("GET", "/stores").expect(status: 200, contentType: "application/json").decoded(Page.self)
        #expect(first.stores.count == 100)
        #expect(first.stores.map(\.id) == ["default"] + ids.prefix(99), "ordered by id: default, s000 … s098")
        #expect(first.next == "s098", "the 100th id")
        let rest = try server.send("GET", "/stores?after=s098").decoded(Page.self)
        #expect(rest.stores.map(\.id) == ["s099", "s100"] && rest.next == nil)
    }

    @Test func deletingAStoreEndsItsStreamsAndTheNewStoreOfThatIdMatchesNoOldTagOrEventId() throws {
        let server = try StoresServer(transport: .live)
        #expect(try server.send("PUT", "/stores/room").status == 201)
        _ = try server.increase("room", times: 2)
        let oldTag = try #require(try server.send("GET", "/stores/room/state").headers["ETag"])
        let stream = try SSEClient(port: server.port, path: "/stores/room/events")
        let first = try #require(try stream.nextEvent(timeout: .seconds(10)))
        let oldEventId = try #require(first.id)
        #expect(try server.send("DELETE", "/stores/room").status == 204)
        #expect(try stream.waitForEnd(timeout: .seconds(10)) == .clean)
        #expect(try server.send("GET", "/stores/room/state").status == 404)
        #expect(try server.send("PUT", "/stores/room").status == 201)
        _ = try server.increase("room", times: 2)
        let fresh = try server.send("GET", "/stores/room/state", headers: [("If-None-Match", oldTag)])
        #expect(fresh.status == 200 && fresh.headers["ETag"] != oldTag)
        let resumed = try SSEClient(port: server.port, path: "/stores/room/events", headers: [("Last-Event-ID", oldEventId)])
        #expect(resumed.headers["ReMVVM-Replay"] == "reset")
        resumed.close()
        #expect(try server.send("DELETE", "/stores/default").status == 405)
        #expect(try server.send("DELETE", "/stores/nothing").status == 404)
    }

    /// In memory, `idempotencyMemoryLimit` bounds the answers of every store together (a bound per
    /// store multiplied with the stores); a key is still a store's own, and a store deleted and
    /// made again starts without the old one's answers.
    @Test func inMemoryTheStoresShareTheLimitOfKeptAnswers() throws {
        let server = try StoresServer(idempotencyMemoryLimit: 2)
        _ = try server.send("PUT", "/stores/a")
        _ = try server.send("PUT", "/stores/b")
        func post(_ store: String, key: String) throws -> TestHTTPResponse {
            try server.send("POST", "/stores/\(store)/actions", headers: [("Idempotency-Key", key)], body: #"{"type":"increase"}"#)
        }
        #expect(try post("a", key: "k1").bodyString == #"{"version":1}"#)
        #expect(try post("b", key: "k1").bodyString == #"{"version":1}"#, "a key is its store's own")
        #expect(try post("b", key: "k2").headers["Idempotent-Replayed"] == nil)
        let forgotten = try post("a", key: "k1")
        #expect(forgotten.bodyString == #"{"version":2}"# && forgotten.headers["Idempotent-Replayed"] == nil, "a's k1, the oldest of both stores, went")
        let kept = try post("b", key: "k2")
        #expect(kept.bodyString == #"{"version":2}"# && kept.headers["Idempotent-Replayed"] == "true")
        #expect(try server.send("DELETE", "/stores/b").status == 204)
        #expect(try server.send("PUT", "/stores/b").status == 201)
        #expect(try post("b", key: "k2").bodyString == #"{"version":1}"#, "the new b never meets the old one's answers")
    }

    /// In memory, `actionLogMemoryLimit` bounds the action logs of every store together: each keeps
    /// its share (the limit over the stores keeping actions), cut at its next action or when the
    /// stores keeping actions have doubled since the last cut; a store's share grows back when
    /// another is deleted.
    @Test func inMemoryTheStoresShareTheLimitOfTheActionLogs() throws {
        let server = try StoresServer(actionLogMemoryLimit: 12)
        for store in ["a", "b", "c"] {
            #expect(try server.send("PUT", "/stores/\(store)").status == 201)
        }
        let twenty = "[" + Array(repeating: #"{"type":"increase"}"#, count: 20).joined(separator: ",") + "]"
        func post(_ store: String, _ body: String) throws {
            #expect(try server.send("POST", "/stores/\(store)/actions", body: body).status == 200)
        }
        struct Log: Decodable {
            struct Action: Decodable { var version: UInt64 }
            var earliest: UInt64?
            var actions: [Action]
        }
        func versions(_ store: String) throws -> [UInt64] {
            let log = try server.send("GET", "/stores/\(store)/actions?limit=1000").decoded(Log.self)
            #expect(log.earliest == log.actions.first?.version)
            return log.actions.map(\.version)
        }
        try post("a", twenty)
        #expect(try versions("a") == Array(9...20), "alone: all 12")
        try post("b", twenty)
        #expect(try versions("b") == Array(15...20), "two stores: 6 each")
        #expect(try versions("a") == Array(9...20), "a is cut at its next action, not by b's")
        try post("c", twenty)
        #expect(try versions("c") == Array(17...20), "three stores: 4 each")
        #expect(try versions("a") == Array(17...20), "the stores doubled since the last cut: every log cut")
        #expect(try versions("b") == Array(17...20))
        #expect(try server.send("DELETE", "/stores/c").status == 204)
        try post("a", #"{"type":"increase"}"#)
        #expect(try versions("a") == Array(17...21), "c gone: a's share is 6 again, and grows back")
        try post("a", "[" + Array(repeating: #"{"type":"increase"}"#, count: 2).joined(separator: ",") + "]")
        #expect(try versions("a") == Array(18...23))
        #expect(try versions("b") == Array(17...20))
        var unbounded = ServiceConfiguration()
        unbounded.actionLogMemoryLimit = 0
        #expect(throws: ServiceConfigurationError.self, "at least one action") { try unbounded.validate() }
    }

    @Test func metricsCountStoresWithoutAStoreLabel() throws {
        let server = try StoresServer()
        _ = try server.send("PUT", "/stores/a")
        _ = try server.send("PUT", "/stores/b")
        _ = try server.increase("a")
        let text = try server.send("GET", "/metrics").bodyString
        #expect(metricSample(text, "remvvm_stores") == 3)
        #expect(metricSample(text, "remvvm_stores_loaded") == 2)
        #expect(metricSample(text, "remvvm_store_loads_total") == 1)
        #expect(!text.contains("store=\""))
    }

    /// `remvvm_sse_subscribers` and `/stats`' `stores.subscribers` count every store's open
    /// streams: they are the server's connections, whichever store they follow (http-api.md,
    /// "Stores", "Metrics", "`GET /stats`").
    @Test func openStreamsAreCountedOverEveryStore() throws {
        let server = try StoresServer(transport: .live)
        #expect(try server.send("PUT", "/stores/a").status == 201)
        #expect(try server.send("PUT", "/stores/b").status == 201)
        var streams: [SSEClient] = []
        for path in ["/events", "/stores/a/events", "/stores/b/events", "/stores/b/viewmodels/counter/events"] {
            let stream = try SSEClient(port: server.port, path: path)
            #expect(try stream.nextEvent(timeout: .seconds(10)) != nil, "\(path)")
            streams.append(stream)
        }
        // The gauges follow the hubs' lanes, which count a stream once they hold it (its first
        // event may come before).
        var text = ""
        let counted = waitUntil(timeout: .seconds(10)) {
            text = (try? server.send("GET", "/metrics").bodyString) ?? ""
            return metricSample(text, "remvvm_sse_subscribers", ["stream": "events"]) == 3
                && metricSample(text, "remvvm_sse_subscribers", ["stream": "viewmodels"]) == 1
        }
        #expect(counted, "\(text.split(separator: "\n").filter { $0.hasPrefix("remvvm_sse_subscribers") })")
        // /stats: its own `subscribers` are default's, `stores.subscribers` every store's.
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(server.send("GET", "/stats").body)) as? [String: Any])
        #expect(stats["subscribers"] as? [String: Int] == ["events": 1, "viewModels": 0])
        let stores = try #require(stats["stores"] as? [String: Any])
        #expect(stores["subscribers"] as? [String: Int] == ["events": 3, "viewModels": 1])
        streams.forEach { $0.close() }
    }
}
