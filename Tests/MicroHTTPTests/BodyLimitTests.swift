import HTTPTestSupport
import MicroHTTP
import Testing

/// `maxBodyBytes`: 413 before routing, and the server keeps going.
@Suite struct BodyLimitTests {
    private func server(
        limit: Int = 1024,
        requests: Mailbox<Request> = Mailbox(),
        timeoutSeconds: Int = 30
    ) throws -> TestServer {
        var router = Router()
        router.add(.POST, "/upload") { request, _ in
            requests.post(request)
            return .ok("got \(request.body.count)")
        }
        router.failure = { failure, method, path in
            .text("refused \(method) \(path): \(failure.status)", status: failure.status)
        }
        return try TestServer(router: router) {
            $0.maxBodyBytes = limit
            $0.connectionTimeoutSeconds = timeoutSeconds
        }
    }

    @Test func bodyAtTheLimitIsAccepted() throws {
        let server = try server()
        let response = try server.client().send(method: "POST", path: "/upload", body: Array(repeating: 1, count: 1024))
        #expect(response.status == 200)
        #expect(response.bodyString == "got 1024")
    }

    @Test func declaredTooLargeBodyGets413BeforeRouting() throws {
        let requests = Mailbox<Request>()
        let server = try server(requests: requests)
        let response = try server.client().send(method: "POST", path: "/upload", body: Array(repeating: 1, count: 1025))
        #expect(response.status == 413)
        #expect(response.bodyString == "refused POST /upload: 413")
        #expect(requests.snapshot.isEmpty)
        #expect(try server.client().send(method: "POST", path: "/upload", body: [1, 2, 3]).status == 200)
    }

    @Test func aClientThatSendsTheWholeOversizedBodyBeforeReadingGetsThe413() throws {
        // Like Python's http.client: write the whole request, then read. Closing on it while it
        // still sends would reset the connection and lose the answer.
        let requests = Mailbox<Request>()
        let server = try server(limit: 1 << 20, requests: requests)
        let client = server.client()
        let response = try client.send(method: "POST", path: "/upload", body: Array(repeating: 7, count: 3 << 20))
        #expect(response.status == 413)
        #expect(requests.snapshot.isEmpty)
        // The body was read through, so the connection stays usable.
        #expect(try client.send(method: "POST", path: "/upload", body: [1]).status == 200)
        #expect(client.connectionsOpened == 1)
    }

    @Test func aClientThatWaitsFor100ContinueGetsThe413Instead() throws {
        let server = try server()
        let client = server.client()
        try client.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 413)
    }

    @Test func hugeDeclaredLengthGets413WithoutSendingTheBody() throws {
        let server = try server()
        let client = server.client()
        try client.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n".utf8))
        #expect(try client.readResponse().status == 413)
    }

    @Test func chunkedTooLargeBodyIsDrainedThen413AndTheConnectionStaysUsable() throws {
        let requests = Mailbox<Request>()
        let server = try server(requests: requests)
        let client = server.client()
        let chunk = String(repeating: "x", count: 500)
        var request = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<5 {
            request += "1f4\r\n\(chunk)\r\n"
        }
        request += "0\r\n\r\n"
        try client.sendRaw(Array(request.utf8))
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(requests.snapshot.isEmpty)
        let next = try client.send(method: "POST", path: "/upload", body: [1])
        #expect(next.status == 200)
    }

    @Test func clientLeavingMidBodyDoesNotDisturbTheServer() throws {
        let requests = Mailbox<Request>()
        let server = try server(limit: 1 << 20, requests: requests, timeoutSeconds: 1)
        for _ in 0..<20 {
            let quitter = server.client()
            try quitter.sendRaw(Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n".utf8) + Array(repeating: 7, count: 2000))
            quitter.close()
        }
        #expect(try server.client().send(method: "POST", path: "/upload", body: [1, 2]).bodyString == "got 2")
        #expect(requests.snapshot.count == 1)
        // Every abandoned request completes and its state is freed: shutdown finds nothing in
        // flight. (Were a close ever missed, the 1 s idle timeout would still reclaim it.)
        let clock = ContinuousClock()
        let elapsed = clock.measure { server.server.shutdown(timeout: .seconds(10)) }
        #expect(elapsed < .seconds(5))
    }
}
