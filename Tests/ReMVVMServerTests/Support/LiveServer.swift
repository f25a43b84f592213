import AccessControl
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import ReMVVM
@testable import ReMVVMServer

/// How a test reaches the service: the same test body runs both ways where it can (like
/// HummingbirdTesting's `.router` and `.live`).
enum Transport: String, Sendable, CaseIterable {
    /// Over a real socket to the started HTTP server: framing, connection handling, libmicrohttpd.
    case live
    /// Straight into the service's router, in process: route logic only, no socket, no server.
    case router
}

/// The example app served on 127.0.0.1 at a free port, for one test; shut down when released.
///
/// With ``Transport/router`` nothing listens: ``get(_:headers:)``, ``post(_:contentType:client:)``
/// and ``send(method:path:headers:body:)`` call the service's router directly.
final class LiveServer: Sendable {
    let store: Store<AppState>
    let server: ReMVVMServer<AppState>
    /// How this server tags versions (an instance token of its own).
    let versionTags: VersionTags

    var port: Int { server.port }

    let transport: Transport
    private let router: ServiceResponder

    init(
        transport: Transport = .live,
        writes: StreamWrites = .direct,
        middleware: [any AnyMiddleware] = [],
        services: Services = Services(),
        maxBodyBytes: Int = 1 << 20,
        heartbeat: Duration = .seconds(15),
        connectionLimit: Int = HTTPServerConfiguration().connectionLimit,
        subscriberBacklogBytes: Int = 1 << 20,
        journal: (any JournalStorage)? = nil,
        replication: ReplicaConfiguration? = nil,
        snapshotEvery: UInt64 = 10_000,
        replayRingEvents: Int = 10_000,
        replayRingBytes: Int = 64 << 20,
        journalRetention: JournalRetention = 1_000_000,
        corsAllowedOrigins: [String] = [],
        allowedHosts: [String]? = nil,
        metricsEnabled: Bool = true,
        eventHubIdleGrace: Duration? = nil,
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        store = try Store.example(middleware: middleware, services: services)
        var http = HTTPServerConfiguration()
        http.host = "127.0.0.1"
        http.port = 0
        http.maxBodyBytes = maxBodyBytes
        http.heartbeatInterval = heartbeat
        http.connectionLimit = connectionLimit
        http.directStreamWrites = writes.directStreamWrites
        var service = ServiceConfiguration()
        service.subscriberBacklogBytes = subscriberBacklogBytes
        service.snapshotEvery = snapshotEvery
        service.replayRingEvents = replayRingEvents
        service.replayRingBytes = replayRingBytes
        service.journalRetention = journalRetention
        service.corsAllowedOrigins = corsAllowedOrigins
        service.allowedHosts = allowedHosts
        service.metricsEnabled = metricsEnabled
        service.eventHubIdleGrace = eventHubIdleGrace
        if journal != nil || replication != nil {
            service.versionTags = .plain  // versions survive restarts
        }
        versionTags = service.versionTags
        server = try ReMVVMServer.example(
            store: store, http: http, service: service, accessControl: accessControl, journal: journal, replication: replication, logger: logger
        )
        self.transport = transport
        router = server.service.responder()
        if transport == .live {
            try server.start()
        }
    }

    deinit {
        server.shutdown()
    }

    /// The `ETag` this server gives `version`.
    func etag(_ version: UInt64) -> String {
        versionTags.etag(version)
    }

    func client() -> TestHTTPClient {
        TestHTTPClient(port: port)
    }

    func subscribe(receiveBufferSize: Int? = nil) throws -> SSEClient {
        try SSEClient(port: port, path: "/events", receiveBufferSize: receiveBufferSize)
    }

    /// `POST /viewmodels/<name>/commands/<command>` (`target` is the part after `/viewmodels/`,
    /// query included) with `json` as the body, or without body and `Content-Type` when nil.
    func command(
        _ target: String,
        _ json: String? = nil,
        contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) throws -> TestHTTPResponse {
        var sent = headers
        if json != nil, let contentType {
            sent.append(("Content-Type", contentType))
        }
        return try send(method: "POST", path: "/viewmodels/" + target, headers: sent, body: Array((json ?? "").utf8))
    }

    /// `POST /actions` with a JSON body, and `headers` after its `Content-Type`.
    func post(
        _ json: String,
        contentType: String? = "application/json",
        headers extra: [(String, String)] = [],
        client: TestHTTPClient? = nil
    ) throws -> TestHTTPResponse {
        let headers = (contentType.map { [("Content-Type", $0)] } ?? []) + extra
        if let client {
            return try client.send(method: "POST", path: "/actions", headers: headers, body: Array(json.utf8))
        }
        return try send(method: "POST", path: "/actions", headers: headers, body: Array(json.utf8))
    }

    func get(_ path: String, headers: [(String, String)] = []) throws -> TestHTTPResponse {
        try send(method: "GET", path: path, headers: headers)
    }

    /// One request over this server's transport.
    func send(method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> TestHTTPResponse {
        switch transport {
        case .live:
            return try client().send(method: method, path: path, headers: headers, body: body)
        case .router:
            return respondInProcess(method: method, target: path, headers: headers, body: body)
        }
    }

    /// What the router answers, as a client would read it (status, headers, body; no stream).
    private func respondInProcess(method: String, target: String, headers: [(String, String)], body: [UInt8]) -> TestHTTPResponse {
        let parts = target.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        var queryItems: [(name: String, value: String)] = []
        for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1)
            let name = String(nameAndValue[0]).removingPercentEncoding ?? ""
            let value = nameAndValue.count > 1 ? String(nameAndValue[1]).removingPercentEncoding ?? "" : ""
            query[name] = value
            queryItems.append((name, value))
        }
        let request = Request(
            method: HTTPMethod(rawValue: method),
            path: String(parts.first ?? ""),
            query: query,
            queryItems: queryItems,
            headers: HTTPHeaders(headers),
            body: body
        )
        let response = router.respond(to: request)
        let responseBody: [UInt8]
        switch response.body {
        case .bytes(let bytes): responseBody = method == "HEAD" ? [] : bytes
        default: responseBody = []
        }
        return TestHTTPResponse(
            status: response.status,
            reason: "",
            headers: TestHTTPHeaders(response.headers.map { (name: $0.name, value: $0.value) }),
            body: responseBody,
            wasChunked: false
        )
    }
}

/// Hands one non-thread-safe client to exactly one thread of ``runOnThreads(_:_:)``.
final class HandedOver<Value>: @unchecked Sendable {
    // @unchecked: each instance is used by a single thread at a time (created here, used there).
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
