import HTTPTestSupport
import MicroHTTP
import Testing

/// What reaches the responder, over a real socket.
@Suite struct RequestDeliveryTests {
    /// A server that hands every request to the test and answers 200 "ok".
    private func capturingServer() throws -> (TestServer, Mailbox<Request>) {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        return (server, requests)
    }

    @Test func methodPathQueryAndHeadersArrive() throws {
        let (server, requests) = try capturingServer()
        let response = try server.client().send(
            method: "PUT",
            path: "/items/7?key=a&flag&empty=",
            headers: [("X-Trace", "abc"), ("Accept", "application/json")]
        )
        #expect(response.status == 200)
        let request = try #require(requests.next(timeout: .seconds(5)))
        #expect(request.method == .PUT)
        #expect(request.path == "/items/7")
        #expect(request.query == ["key": "a", "flag": "", "empty": ""])
        #expect(request.headers["x-trace"] == "abc")
        #expect(request.headers["ACCEPT"] == "application/json")
        #expect(request.headers["Host"] != nil)
    }

    @Test func pathAndQueryArePercentDecoded() throws {
        let (server, requests) = try capturingServer()
        _ = try server.client().send(path: "/view%20models/caf%C3%A9?name=Ada%20Lovelace&x=a%2Bb&y=c+d&k%3D=v")
        let request = try #require(requests.next(timeout: .seconds(5)))
        #expect(request.path == "/view models/café")
        #expect(request.query["name"] == "Ada Lovelace")
        #expect(request.query["x"] == "a+b")
        #expect(request.query["y"] == "c d")
        #expect(request.query["k="] == "v")
    }

    /// libmicrohttpd passes the decoded path as a C string, which a `%00` would end: the path
    /// arrives whole, NUL included (so it matches no route), also on a kept-alive connection
    /// after requests whose query held one.
    @Test func aDecodedNULStaysInThePath() throws {
        let (server, requests) = try capturingServer()
        let client = server.client()
        _ = try client.send(path: "/state%00foo")
        #expect(try #require(requests.next(timeout: .seconds(5))).path == "/state\u{0}foo")
        _ = try client.send(path: "/state?key=a%00b")
        let plain = try #require(requests.next(timeout: .seconds(5)))
        #expect(plain.path == "/state")
        #expect(plain.query["key"] == "a\u{0}b")
        _ = try client.send(path: "/a%00")
        #expect(try #require(requests.next(timeout: .seconds(5))).path == "/a\u{0}")
    }

    /// A path or query that is not UTF-8 once decoded is refused (400) before the responder: as
    /// text its bytes would read as U+FFFD, so `?key=%FF` and `?key=%FE` were the same key (from a
    /// review: one idempotency fingerprint for both). U+FFFD itself, sent as UTF-8, is text.
    @Test func aPathOrQueryThatIsNotUTF8IsRefused() throws {
        let (server, requests) = try capturingServer()
        for path in ["/state?key=%FF", "/state?%FE=1", "/caf%E9", "/state?key=%C3"] {
            let response = try server.client().send(path: path)
            #expect(response.status == 400, "\(path)")
            #expect(response.bodyString.contains("not UTF-8"), "\(path): \(response.bodyString)")
        }
        #expect(requests.next(timeout: .milliseconds(100)) == nil, "none reached the responder")
        #expect(try server.client().send(path: "/state?key=%EF%BF%BD").status == 200)
        #expect(try #require(requests.next(timeout: .seconds(5))).query["key"] == "\u{FFFD}")
    }

    @Test func repeatedQueryParameterKeepsTheLastValue() throws {
        let (server, requests) = try capturingServer()
        _ = try server.client().send(path: "/?a=1&a=2")
        #expect(try #require(requests.next(timeout: .seconds(5))).query["a"] == "2")
    }

    @Test func bodyArrivesWhole() throws {
        let (server, requests) = try capturingServer()
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let response = try server.client().send(method: "POST", path: "/upload", body: body)
        #expect(response.status == 200)
        #expect(try #require(requests.next(timeout: .seconds(5))).body == body)
    }

    @Test func chunkedBodyArrivesWhole() throws {
        let (server, requests) = try capturingServer()
        let client = server.client()
        let request = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\n\r\n"
        try client.sendRaw(Array(request.utf8))
        #expect(try client.readResponse().status == 200)
        #expect(try #require(requests.next(timeout: .seconds(5))).body == Array("hello world".utf8))
    }

    @Test func requestWithoutBodyHasAnEmptyBody() throws {
        let (server, requests) = try capturingServer()
        _ = try server.client().send(method: "DELETE", path: "/x")
        #expect(try #require(requests.next(timeout: .seconds(5))).body.isEmpty)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try TestServer(responder: ClosureResponder { request in .ok(request.path) })
        let client = server.client()
        for index in 0..<20 {
            let response = try client.send(path: "/r\(index)")
            #expect(response.status == 200)
            #expect(response.bodyString == "/r\(index)")
            #expect(response.headers["Connection"]?.lowercased() != "close")
        }
        #expect(client.connectionsOpened == 1)
    }

    @Test func responseHeadersStatusAndBodyAreSent() throws {
        let server = try TestServer(responder: ClosureResponder { _ in
            Response(
                status: 201,
                headers: ["Content-Type": "application/json", "ETag": "\"7\"", "X-Multi": "a"],
                body: .bytes(Array(#"{"ok":true}"#.utf8))
            )
        })
        let response = try server.client().send(method: "POST", path: "/")
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["ETag"] == "\"7\"")
        #expect(response.headers["Content-Length"] == "11")
        #expect(response.bodyString == #"{"ok":true}"#)
    }

    @Test func emptyBodyResponseHasZeroContentLength() throws {
        let server = try TestServer(responder: ClosureResponder { _ in Response(status: 200) })
        let response = try server.client().send(path: "/")
        #expect(response.headers["Content-Length"] == "0")
        #expect(response.body.isEmpty)
    }

    @Test func invalidStatusBecomes500() throws {
        let server = try TestServer(responder: ClosureResponder { _ in Response(status: 42) })
        #expect(try server.client().send(path: "/").status == 500)
    }

    @Test func invalidResponseHeaderIsLeftOutAndTheResponseStillGoesOut() throws {
        let server = try TestServer(responder: ClosureResponder { _ in
            Response(status: 200, headers: ["X-Bad": "a\r\nInjected: 1", "X-Good": "1"], body: .bytes(Array("fine".utf8)))
        })
        let response = try server.client().send(path: "/")
        #expect(response.status == 200)
        #expect(response.headers["Injected"] == nil)
        #expect(response.headers["X-Good"] == "1")
        #expect(response.bodyString == "fine")
    }

    @Test func malformedRequestGetsAnErrorAndTheServerKeepsServing() throws {
        let server = try TestServer(responder: ClosureResponder { _ in .ok("fine") })
        let broken = server.client()
        try broken.sendRaw(Array("NOT A REQUEST\r\n\r\n".utf8))
        let status = try? broken.readResponse().status
        #expect(status == nil || (400..<500).contains(status ?? 0))
        #expect(try server.client().send(path: "/").bodyString == "fine")
    }
}
