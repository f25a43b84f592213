import AccessControl
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer

/// The example app serving many stores (``ReMVVMService/serveStores(_:)``) in memory, on
/// 127.0.0.1 at a free port or in process; shut down when released.
final class StoresServer: Sendable {
    let server: ReMVVMServer<AppState>
    let catalog: MemoryStoreCatalog
    let transport: Transport
    private let responder: ServiceResponder

    var port: Int { server.port }

    init(
        transport: Transport = .router, autoCreate: Bool = false, maxStores: Int = 1_000,
        replayRingBytes: Int = ServiceConfiguration().replayRingBytes,
        idempotencyMemoryLimit: Int = ServiceConfiguration().idempotencyMemoryLimit,
        actionLogMemoryLimit: Int = ServiceConfiguration().actionLogMemoryLimit,
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        corsAllowedOrigins: [String] = [],
        makeStore: @escaping @Sendable () throws -> Store<AppState> = { try Store.example() }
    ) throws {
        var http = HTTPServerConfiguration()
        http.host = "127.0.0.1"
        http.port = 0
        var service = ServiceConfiguration()
        service.autoCreateStores = autoCreate
        service.maxStores = maxStores
        service.replayRingBytes = replayRingBytes
        service.idempotencyMemoryLimit = idempotencyMemoryLimit
        service.actionLogMemoryLimit = actionLogMemoryLimit
        service.corsAllowedOrigins = corsAllowedOrigins
        catalog = MemoryStoreCatalog()
        server = try ReMVVMServer.example(http: http, service: service, accessControl: accessControl)
        server.service.serveStores(StoreServing(catalog: catalog, storage: .memory, makeStore: makeStore))
        self.transport = transport
        responder = server.service.responder()
        if transport == .live {
            try server.start()
        } else {
            try server.service.start()
        }
    }

    deinit {
        server.shutdown()
    }

    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestHTTPResponse {
        var headers = headers
        if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        switch transport {
        case .live:
            return try TestHTTPClient(port: port).send(method: method, path: target, headers: headers, body: Array(body.utf8))
        case .router:
            let (path, query) = splitTarget(target)
            let response = responder.respond(to: Request(
                method: HTTPMethod(rawValue: method), path: path, query: query,
                headers: HTTPHeaders(headers), body: Array(body.utf8)
            ))
            var bytes: [UInt8] = []
            if case .bytes(let body) = response.body { bytes = body }
            return TestHTTPResponse(
                status: response.status, reason: "",
                headers: TestHTTPHeaders(response.headers.map { (name: $0.name, value: $0.value) }),
                body: bytes, wasChunked: false
            )
        }
    }

    func increase(_ store: String, times: Int = 1) throws -> TestHTTPResponse {
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: times).joined(separator: ",") + "]"
        return try send("POST", "/stores/\(store)/actions", body: batch)
    }
}

/// `GET /stores/{id}` and the listing as a client reads them.
struct StoreDescriptionBody: Decodable, Equatable {
    var id: String
    var version: UInt64
    var createdAt: String
    var lastActionAt: String?
    var loaded: Bool
}

/// A request target's path and its query of `name=value` pairs (not percent-decoded), for
/// requests handed to a responder in process.
func splitTarget(_ target: String) -> (path: String, query: [String: String]) {
    let parts = target.split(separator: "?", maxSplits: 1)
    var query: [String: String] = [:]
    for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
        let nameAndValue = pair.split(separator: "=", maxSplits: 1)
        query[String(nameAndValue[0])] = nameAndValue.count > 1 ? String(nameAndValue[1]) : ""
    }
    return (String(parts.first ?? ""), query)
}
