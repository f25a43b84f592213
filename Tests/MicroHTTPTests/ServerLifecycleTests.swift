import HTTPTestSupport
import Logging
import MicroHTTP
import Testing

/// Starting: addresses, ports and configuration errors.
@Suite struct ServerLifecycleTests {
    private func makeServer(_ configure: (inout HTTPServerConfiguration) -> Void) -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        return HTTPServer(
            configuration: configuration,
            responder: ClosureResponder { _ in .ok("hi") },
            logger: Logger(label: "test")
        )
    }

    @Test func portZeroBindsAnEphemeralPort() throws {
        let server = makeServer { _ in }
        try server.start()
        defer { server.shutdown() }
        #expect(server.port > 0)
        #expect(try TestHTTPClient(port: server.port).send(path: "/").bodyString == "hi")
    }

    @Test func portInUseIsReported() throws {
        let first = makeServer { _ in }
        try first.start()
        defer { first.shutdown() }
        let second = makeServer { $0.port = first.port }
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(error.code == .addressInUse)
        #expect(error.message.contains("\(first.port)"))
    }

    @Test func badHostIsReported() throws {
        let server = makeServer { $0.host = "not a host" }
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .invalidHost)
    }

    @Test func outOfRangeSettingsAreReported() throws {
        for configure: (inout HTTPServerConfiguration) -> Void in [
            { $0.port = 70_000 },
            { $0.workerThreads = 0 },
            { $0.connectionMemoryLimit = 100 },
            { $0.heartbeatInterval = .zero },
        ] {
            let error = try #require(throws: HTTPServerError.self) { try makeServer(configure).start() }
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test func localhostAndIPv6LoopbackWork() throws {
        let local = makeServer { $0.host = "localhost" }
        try local.start()
        defer { local.shutdown() }
        #expect(try TestHTTPClient(host: "127.0.0.1", port: local.port).send(path: "/").status == 200)

        let v6 = makeServer { $0.host = "::1" }
        do {
            try v6.start()
        } catch let error as HTTPServerError where error.code == .invalidHost || error.code == .socketFailed {
            return  // no IPv6 loopback in this environment
        }
        defer { v6.shutdown() }
        #expect(try TestHTTPClient(host: "::1", port: v6.port).send(path: "/").status == 200)
    }

    @Test func shutdownReleasesTheListeningPortExactlyOnce() throws {
        let first = makeServer { _ in }
        try first.start()
        let port = first.port
        first.shutdown()
        // Bindable again: libmicrohttpd closed the socket (and we did not close its number twice).
        let second = makeServer { $0.port = port }
        try second.start()
        defer { second.shutdown() }
        #expect(second.port == port)
        #expect(try TestHTTPClient(port: port).send(path: "/").status == 200)
    }

    @Test func startingTwiceIsRefused() throws {
        let server = makeServer { _ in }
        try server.start()
        defer { server.shutdown() }
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .alreadyStarted)
    }

    @Test func largeRequestHeadersWithinTheMemoryLimitAreAccepted() throws {
        let server = makeServer { _ in }
        try server.start()
        defer { server.shutdown() }
        // libmicrohttpd parses cookies into the pool too: at the default 8 KiB, ~3.5 KB fit.
        let cookie = String(repeating: "c", count: 3000)
        let response = try TestHTTPClient(port: server.port).send(path: "/", headers: [("Cookie", cookie)])
        #expect(response.status == 200)
    }

    /// Issue 9, defect 6: a 4,000-byte cookie got libmicrohttpd's 431 with its head sent twice at an
    /// 8 KiB pool. At the default pool it reaches the responder and gets exactly one answer.
    @Test func aFourKilobyteCookieGetsExactlyOneAnswer() throws {
        let server = makeServer { _ in }
        try server.start()
        defer { server.shutdown() }
        let cookie = "session=" + String(repeating: "c", count: 4000)
        let head = "GET / HTTP/1.1\r\nHost: t\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n"
        let bytes = try TestHTTPClient(port: server.port, timeout: .seconds(5)).exchangeUntilClosed(Array(head.utf8))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 "))
        let statusLines = text.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        #expect(statusLines.count == 1, "one status line, got: \(text.prefix(400))")
    }

    @Test func oversizedRequestHeadersAreRefusedWithoutCrashing() throws {
        let server = makeServer { _ in }
        try server.start()
        defer { server.shutdown() }
        let huge = String(repeating: "h", count: 64 * 1024)
        let client = TestHTTPClient(port: server.port)
        let status = try? client.send(path: "/", headers: [("X-Huge", huge)]).status
        #expect(status == nil || status == 431 || status == 413)
        #expect(try TestHTTPClient(port: server.port).send(path: "/").status == 200)
    }
}
