import HTTPTestSupport
import Logging
import MicroHTTP
import Testing

/// libmicrohttpd's own messages repeat as often as their cause: one line per kind, then a count.
@Suite struct DaemonLogTests {
    @Test func aRepeatedLibmicrohttpdMessageIsLoggedOnce() throws {
        let captured = CapturedLog()
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.workerThreads = 2
        let server = HTTPServer(
            configuration: configuration, responder: ClosureResponder { _ in .ok("ok") }, logger: captured.logger(level: .debug)
        )
        try server.start()
        defer { server.shutdown() }
        // A Content-Length that is not a number: libmicrohttpd answers 400 itself and logs
        // "Failed to parse `Content-Length' header" (connection.c ~3631) each time.
        for _ in 0..<20 {
            let answer = try TestHTTPClient(port: server.port, timeout: .seconds(5))
                .exchangeUntilClosed(Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n".utf8))
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        }
        let lines = captured.messages.snapshot.filter { $0.contains("Failed to parse `Content-Length'") }
        #expect(lines == ["debug libmicrohttpd: Failed to parse `Content-Length' header. Closing connection."])
    }
}
