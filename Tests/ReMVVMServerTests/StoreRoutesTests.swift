import ExampleApp
import HTTPTestSupport
import Journal
import MicroHTTP
import ReMVVM
@testable import ReMVVMServer
import Testing

/// Every store route exists at the root (the store `default`) and under `/stores/{id}`
/// (`../shared/docs/stores.md`): the twins answer alike, a malformed id is `400` naming the
/// rule, an unknown store `404 store-not-found`, and a plugged resolver serves stores of their
/// own, with versions of their own.
@Suite struct StoreRoutesTests {
    /// What a client compares: the status, the body and the headers that name versions.
    private static func answer(_ response: TestHTTPResponse) -> String {
        "\(response.status) \(response.headers["ETag"] ?? "-") \(response.headers["Content-Type"] ?? "-") \(response.bodyString)"
    }

    @Test(arguments: Transport.allCases)
    func aRootRouteAndItsDefaultStoreTwinGiveTheSameAnswers(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let posted = try live.send(
            method: "POST", path: "/stores/default/actions", headers: [("Content-Type", "application/json")],
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(posted.bodyString == #"{"version":1}"#)
        #expect(try live.command("counter/commands/increase").bodyString == #"{"version":2}"#)
        let command = try live.send(method: "POST", path: "/stores/default/viewmodels/counter/commands/increase")
        #expect(command.bodyString == #"{"version":3}"#)
        #expect(live.store.version == 3, "both paths dispatch to the one store")
        for path in ["/state", "/actions", "/actions?since=1&limit=1", "/viewmodels", "/viewmodels/counter", "/viewmodels/nothing"] {
            let root = try live.get(path)
            let twin = try live.get("/stores/default" + path)
            #expect(Self.answer(twin) == Self.answer(root), "\(path)")
        }
        let notModified = try live.get("/stores/default/state", headers: [("If-None-Match", live.etag(3))])
        #expect(notModified.status == 304)
        let stale = try live.send(
            method: "POST", path: "/stores/default/actions",
            headers: [("Content-Type", "application/json"), ("If-Match", live.etag(1))], body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(stale.status == 412)
        #expect(stale.headers["ETag"] == live.etag(3))
    }

    @Test func theDefaultStoresStreamsUnderStoresAreItsStreams() throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)
        let events = try SSEClient(port: live.port, path: "/stores/default/events")
        defer { events.close() }
        let first = try #require(try events.nextEvent(timeout: .seconds(10)))
        #expect(first.id == live.versionTags.tag(1))
        let viewModel = try SSEClient(port: live.port, path: "/stores/default/viewmodels/counter/events")
        defer { viewModel.close() }
        #expect(try viewModel.nextEvent(timeout: .seconds(10))?.data.contains(#""counter":"1""#) == true)
        _ = try live.send(
            method: "POST", path: "/stores/default/actions", headers: [("Content-Type", "application/json")],
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(try events.nextEvent(timeout: .seconds(10))?.id == live.versionTags.tag(2), "a write under /stores/default reaches the root's stream")
        #expect(try viewModel.nextEvent(timeout: .seconds(10))?.data.contains(#""counter":"2""#) == true)
    }

    @Test func theStreamOfManyViewModelsUnderStoresIsNotTakenForAViewModelNamedEvents() throws {
        let live = try LiveServer()
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        let stream = try SSEClient(port: live.port, path: "/stores/default/viewmodels/events?name=counter")
        defer { stream.close() }
        let first = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(first.data.contains(#""counter":"1""#), "\(first.data)")
    }

    @Test func anIdempotencyKeyMeansTheSameAtTheRootAndUnderStoresDefault() throws {
        let live = try LiveServer(transport: .router)
        let headers = [("Content-Type", "application/json"), ("Idempotency-Key", "one-order")]
        let first = try live.send(method: "POST", path: "/actions", headers: headers, body: Array(#"{"type":"increase"}"#.utf8))
        let retry = try live.send(method: "POST", path: "/stores/default/actions", headers: headers, body: Array(#"{"type":"increase"}"#.utf8))
        #expect(first.bodyString == #"{"version":1}"#)
        #expect(retry.bodyString == #"{"version":1}"#)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(live.store.version == 1, "the retry under /stores/default dispatched nothing")
    }

    @Test(arguments: ["-starts-with-a-dash", "has%20a%20space", "has!", String(repeating: "a", count: 129)])
    func aMalformedStoreIdIs400NamingTheRule(id: String) throws {
        let live = try LiveServer(transport: .router)
        let decoded = id.removingPercentEncoding ?? id
        let rule = try #require(Self.rule(of: decoded))
        for (method, path) in [("GET", "/state"), ("POST", "/actions"), ("GET", "/viewmodels/counter/events")] {
            let response = try live.send(method: method, path: "/stores/\(decoded)\(path)", body: Array(#"{"type":"increase"}"#.utf8))
            #expect(response.status == 400, "\(method) \(path)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.bodyString.contains(rule), "\(response.bodyString)")
            #expect(response.bodyString.contains("urn:remvvm:problem:invalid-store-id"))
        }
        #expect(live.store.version == 0)
    }

    @Test func anUnknownStoreIs404StoreNotFoundForReadsAndWrites() throws {
        let live = try LiveServer(transport: .router)
        for (method, path) in [
            ("GET", "/state"), ("GET", "/actions"), ("GET", "/events"), ("GET", "/viewmodels"), ("GET", "/viewmodels/counter"),
            ("GET", "/viewmodels/counter/events"), ("GET", "/viewmodels/events?name=counter"), ("POST", "/actions"),
            ("POST", "/viewmodels/counter/commands/increase"),
        ] {
            let response = try live.send(
                method: method, path: "/stores/room-1\(path)", headers: [("Content-Type", "application/json")],
                body: method == "POST" ? Array(#"{"type":"increase"}"#.utf8) : []
            )
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.bodyString.contains("urn:remvvm:problem:store-not-found"), "\(method) \(path)")
            #expect(response.bodyString.contains("room-1"))
        }
        #expect(live.store.version == 0, "nothing was dispatched anywhere")
    }

    @Test func aPluggedResolverServesItsStoresWithVersionsOfTheirOwn() throws {
        let live = try LiveServer(transport: .router)
        let service = live.server.service
        let room = ServedStore(
            id: try StoreID("room-1"),
            backend: MemoryBackend(store: try Store.example(), codec: service.codec, actionLogBudget: service.environment.actionLogBudget),
            versionTags: VersionTags(instance: "room1"),
            environment: service.environment
        )
        try room.start()
        defer { room.stop() }
        #expect(service.serveStores(with: Rooms(root: service.root, room: room)))
        let headers = [("Content-Type", "application/json")]
        let body = Array(#"{"type":"increase"}"#.utf8)
        #expect(try live.send(method: "POST", path: "/stores/room-1/actions", headers: headers, body: body).bodyString == #"{"version":1}"#)
        #expect(try live.send(method: "POST", path: "/stores/room-1/actions", headers: headers, body: body).bodyString == #"{"version":2}"#)
        #expect(live.store.version == 0, "the store default is another store")
        let state = try live.get("/stores/room-1/state")
        #expect(state.bodyString == #"{"counter":2,"user":null}"#)
        #expect(state.headers["ETag"] == #""2-room1""#)
        #expect(try live.get("/state").bodyString == #"{"counter":0,"user":null}"#)
        #expect(try live.get("/stores/room-2/state").status == 404)
        // A tag of one store means nothing in another.
        let conditional = try live.send(
            method: "POST", path: "/actions", headers: headers + [("If-Match", #""2-room1""#)], body: body
        )
        #expect(conditional.status == 412)
    }

    @Test func streamPathsUnderAStoreAreStreamPaths() {
        #expect(EventStreamPaths.contains("/events"))
        #expect(EventStreamPaths.contains("/stores/room-1/events"))
        #expect(EventStreamPaths.contains("/stores/room-1/viewmodels/counter/events"))
        #expect(EventStreamPaths.contains("/stores/room-1/viewmodels/events"))
        #expect(!EventStreamPaths.contains("/stores/room-1/state"))
        #expect(!EventStreamPaths.contains("/stores/events"))
        #expect(!EventStreamPaths.contains("/state"))
        #expect(EventStreamPaths.contains("/viewmodels/events"))
        #expect(EventStreamPaths.contains("/viewmodels/counter/events"))
        #expect(!EventStreamPaths.contains("/viewmodels/"))
        #expect(!EventStreamPaths.contains("/eventsx"))
        #expect(!EventStreamPaths.contains("/stores/room-1/state/events"))
        #expect(!EventStreamPaths.contains("/stores/room-1"))
        #expect(!EventStreamPaths.contains(""))
    }

    /// The rule `text` breaks as a store id, or nil when it is one.
    private static func rule(of text: String) -> String? {
        do {
            _ = try StoreID(text)
            return nil
        } catch {
            return error.rule
        }
    }
}

/// `default` and one room.
private struct Rooms: StoreResolver {
    let root: ServedStore<AppState>
    let room: ServedStore<AppState>

    func store(_ id: StoreID, for intent: StoreIntent, request: Request) -> Result<ServedStore<AppState>, Problem> {
        switch id.rawValue {
        case "default": .success(root)
        case room.id.rawValue: .success(room)
        default: .failure(.storeNotFound(id))
        }
    }
}
