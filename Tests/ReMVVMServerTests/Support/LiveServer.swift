import ExampleApp
import Foundation
import HTTPTestSupport
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer

/// The example app served on 127.0.0.1 at a free port, for one test; shut down when released.
final class LiveServer: Sendable {
    let store: Store<AppState>
    let server: ReMVVMServer<AppState>
    /// How this server tags versions (an instance token of its own).
    let versionTags: VersionTags

    var port: Int { server.port }

    init(
        writes: StreamWrites = .direct,
        middleware: [any AnyMiddleware] = [],
        maxBodyBytes: Int = 1 << 20,
        heartbeat: Duration = .seconds(15),
        subscriberBacklogBytes: Int = 1 << 20,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        store = try Store.example(middleware: middleware)
        var http = HTTPServerConfiguration()
        http.host = "127.0.0.1"
        http.port = 0
        http.maxBodyBytes = maxBodyBytes
        http.heartbeatInterval = heartbeat
        http.directStreamWrites = writes.directStreamWrites
        var service = ServiceConfiguration()
        service.subscriberBacklogBytes = subscriberBacklogBytes
        versionTags = service.versionTags
        server = ReMVVMServer(
            store: store,
            actions: ExampleApp.actions,
            viewModels: ExampleApp.viewModels,
            http: http,
            service: service,
            logger: logger
        )
        try server.start()
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

    /// `POST /actions` with a JSON body.
    func post(
        _ json: String,
        contentType: String? = "application/json",
        client: TestHTTPClient? = nil
    ) throws -> TestHTTPResponse {
        let headers = contentType.map { [("Content-Type", $0)] } ?? []
        return try (client ?? self.client()).send(method: "POST", path: "/actions", headers: headers, body: Array(json.utf8))
    }

    func get(_ path: String, headers: [(String, String)] = []) throws -> TestHTTPResponse {
        try client().send(path: path, headers: headers)
    }

    /// Waits until `condition` holds, checking as events arrive; false at the deadline.
    func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        HTTPTestSupport.waitUntil(timeout: .seconds(seconds), condition)
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
