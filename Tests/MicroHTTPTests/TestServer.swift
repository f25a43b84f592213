import HTTPTestSupport
import Logging
import MicroHTTP

/// A responder made of a closure, for tests.
struct ClosureResponder: Responder {
    let handler: @Sendable (Request) -> Response

    func respond(to request: Request) -> Response {
        handler(request)
    }
}

/// A started server on 127.0.0.1 and an ephemeral port, shut down when the test is done.
final class TestServer: Sendable {
    let server: HTTPServer

    var port: Int { server.port }

    init(
        responder: any Responder,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.workerThreads = 2
        configure(&configuration)
        var logger = Logger(label: "MicroHTTPTests")
        logger.logLevel = .warning
        server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
        try server.start()
    }

    convenience init(
        router: Router,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        try self.init(responder: router, configure: configure)
    }

    func client() -> TestHTTPClient {
        TestHTTPClient(port: port)
    }

    deinit {
        server.shutdown()
    }
}

extension Response {
    /// A 200 text response, for tests.
    static func ok(_ text: String) -> Response {
        .text(text)
    }

    /// The body as text; `<stream>` for a streamed one.
    var bodyText: String {
        guard case .bytes(let bytes) = body else { return "<stream>" }
        return String(decoding: bytes, as: UTF8.self)
    }
}
