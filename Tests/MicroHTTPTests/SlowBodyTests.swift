import HTTPTestSupport
import MicroHTTP
import Testing

/// `requestBodyTimeout` (docs/http-api.md, "Slow bodies"): a body that takes longer than the
/// deadline to arrive closes its connection without an answer; the answer's own wait, and the
/// connection's next head, are not timed by it.
@Suite struct SlowBodyTests {
    private typealias DeferringServer = PendingResponseTests.DeferringServer

    private static func server(bodyTimeout: Duration) throws -> DeferringServer {
        try DeferringServer(workerThreads: 1) {
            $0.requestBodyTimeout = bodyTimeout
            $0.requestHeadTimeout = .seconds(30)
            $0.connectionTimeoutSeconds = 30
        }
    }

    @Test func aBodyTricklingInSlowerThanTheDeadlineIsCutOff() throws {
        let server = try Self.server(bodyTimeout: .milliseconds(400))
        let client = TestHTTPClient(port: server.port)
        try client.sendRaw(Array("POST /later/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n".utf8))
        let (closed, after) = client.trickle(Array(repeating: UInt8(ascii: "x"), count: 200))
        #expect(closed)
        #expect(after < .seconds(3))
        #expect(server.base.server.slowBodyCutOffCount == 1)
        #expect(server.base.server.slowHeadCutOffCount == 0)
        #expect(server.pending.snapshot.isEmpty, "the responder never saw the request")
    }

    @Test func aChunkedBodyWhoseFirstChunkNeverComesIsCutOff() throws {
        let server = try Self.server(bodyTimeout: .milliseconds(300))
        let client = TestHTTPClient(port: server.port)
        try client.sendRaw(Array("POST /later/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
        #expect(client.waitForServerClose(timeout: .seconds(3)))
        #expect(server.base.server.slowBodyCutOffCount == 1)
    }

    /// The body arrived in time: the answer may wait (a durable commit) past the body's deadline,
    /// and the kept-alive connection's next request is timed by the head's deadline alone.
    @Test func anAnswerWaitingPastTheDeadlineAndTheNextRequestAreNotCutOff() throws {
        let server = try Self.server(bodyTimeout: .milliseconds(200))
        let client = TestHTTPClient(port: server.port, timeout: .seconds(10))
        try client.sendRaw(Array("POST /later/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".utf8))
        let request = try #require(server.pending.next(timeout: .seconds(5)))
        #expect(request.body == Array("hello".utf8))
        // Four deadlines (the check runs every 50 ms here) with the answer pending: nothing closes.
        #expect(!client.waitForServerClose(timeout: .milliseconds(800)))
        request.response.complete(.text("done"))
        #expect(try client.readResponse().bodyString == "done")

        #expect(!client.waitForServerClose(timeout: .milliseconds(800)), "idle between requests: no body deadline left behind")
        try client.sendRaw(Array("POST /later/2 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok".utf8))
        let second = try #require(server.pending.next(timeout: .seconds(5)))
        second.response.complete(.text("again"))
        #expect(try client.readResponse().bodyString == "again")
        #expect(server.base.server.slowBodyCutOffCount == 0)
    }

    @Test func aBodyRefusedAsTooLargeLeavesNoDeadlineBehind() throws {
        let server = try DeferringServer(workerThreads: 1) {
            $0.requestBodyTimeout = .milliseconds(200)
            $0.maxBodyBytes = 4
        }
        let client = TestHTTPClient(port: server.port, timeout: .seconds(10))
        let refused = try client.send(method: "POST", path: "/later/1", body: Array("too long".utf8))
        #expect(refused.status == 413)
        #expect(refused.headers["Connection"]?.lowercased() != "close", "kept alive: the body was read through")
        #expect(!client.waitForServerClose(timeout: .milliseconds(800)))
        try client.sendRaw(Array("GET /now HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try client.readResponse().bodyString == "now")
        #expect(server.base.server.slowBodyCutOffCount == 0)
    }
}
