import HTTPTestSupport
@testable import MicroHTTP
import Synchronization
import Testing

/// Framing that could hide one request inside another, and `Host`, refused before routing
/// (RFC 9112 §6.3, §3.2): exactly one answer, then the connection closes.
@Suite struct RequestFramingTests {
    /// Counts the requests that reached the responder.
    final class CountingServer: Sendable {
        final class Counter: Sendable {
            let value = Atomic<Int>(0)
        }

        let base: TestServer
        private let counter = Counter()

        init() throws {
            let counter = counter
            base = try TestServer(responder: ClosureResponder { request in
                counter.value.add(1, ordering: .relaxed)
                return .ok("reached \(request.method.rawValue) \(request.path) \(request.body.count)")
            })
        }

        var reached: Int { counter.value.load(ordering: .relaxed) }

        /// Every byte the server answers to `head` before it closes the connection, as text.
        func answer(_ head: String) throws -> String {
            let bytes = try TestHTTPClient(port: base.port, timeout: .seconds(5)).exchangeUntilClosed(Array(head.utf8))
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static let smuggled = "POST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"

    @Test(arguments: [
        ("Content-Length with Transfer-Encoding",
         "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
         "400", "both Content-Length and Transfer-Encoding"),
        ("two Content-Lengths",
         "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 53\r\n\r\n" + smuggled,
         "400", "more than one Content-Length"),
        ("a blank before the colon",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n" + smuggled,
         "400", "is not a token"),
        ("HTTP/1.1 without Host", "GET /first HTTP/1.1\r\n\r\n" + smuggled, "400", "must carry a Host"),
        ("two Hosts", "GET /first HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + smuggled, "400", "more than one Host"),
        ("an unknown transfer coding",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nxyz" + smuggled, "501", "only transfer coding"),
        // libmicrohttpd appends a folded line to the field's name: without the check, the first
        // request had no length and its body was served as the second one.
        ("a folded Content-Length",
         "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n 53\r\n\r\n" + smuggled,
         "400", "folded onto the one before it (obs-fold)"),
        ("a folded Transfer-Encoding",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n\tchunked\r\n\r\n0\r\n\r\n" + smuggled,
         "400", "folded onto the one before it (obs-fold)"),
        ("a folded Host", "GET /first HTTP/1.1\r\nHost:\r\n x\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        // A name split across a fold comes out whole: only where it sits tells the fold.
        ("a Content-Length split by a fold",
         "POST /first HTTP/1.1\r\nHost: x\r\nContent-:53\r\n Length\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        ("a Transfer-Encoding split by a fold",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-:chunked\r\n Encoding\r\n\r\n0\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        ("a Host split by a fold", "GET /first HTTP/1.1\r\nHo:x\r\n st\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        ("a folded Connection", "GET /first HTTP/1.1\r\nHost: x\r\nConnection:\r\n close\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        ("two folds on the last field", "GET /first HTTP/1.1\r\nHost: x\r\nX-A:\r\n\tc\r\n d\r\n\r\n" + smuggled, "400", "(obs-fold)"),
        ("a folded line with a blank", "GET /first HTTP/1.1\r\nHost: x\r\nAuthorization:\r\n Bearer s3cret-token\r\n\r\n",
         "400", "a header field name is not a token"),
        // libmicrohttpd compares the first field's whole value with "chunked": each of these it
        // read as a body of unknown length, and the request was never answered.
        ("chunked with a blank after it",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n" + smuggled, "501", "only transfer coding"),
        ("chunked with a comma after it",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n" + smuggled, "501", "only transfer coding"),
        ("chunked after an empty coding",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: , chunked\r\n\r\n0\r\n\r\n" + smuggled, "501", "only transfer coding"),
        ("chunked in a second field after an empty one",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled, "501", "only transfer coding"),
        ("chunked applied twice",
         "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + smuggled, "501", "only transfer coding"),
    ])
    func ambiguousFramingGetsOneAnswerAndTheConnectionCloses(_ name: String, _ request: String, _ status: String, _ detail: String) throws {
        let server = try CountingServer()
        let answer = try server.answer(request)
        #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(name): \(answer)")
        #expect(answer.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.count == 1, "\(name): exactly one answer")
        #expect(answer.lowercased().contains("connection: close"), "\(name)")
        #expect(answer.contains(detail), "\(name): \(answer)")
        #expect(!answer.contains("s3cret"), "\(name): no field name is echoed (a folded line can hold a token)")
        #expect(server.reached == 0, "\(name): neither request reached the responder")
    }

    /// Only paths are served: a target without its leading `/` is refused before routing, so that
    /// no gate reads it differently from the router (`GET stores/vault/state` once reached the
    /// store `vault` past the token's reach: the gate found no store, the router `vault`).
    @Test(arguments: [
        "GET stores/vault/state HTTP/1.1\r\nHost: x\r\n\r\n",
        "DELETE stores/vault HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET http://x/state HTTP/1.1\r\nHost: x\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "CONNECT x:80 HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST state HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    ])
    func aTargetThatIsNotAPathIsRefused(_ request: String) throws {
        let server = try CountingServer()
        let answer = try server.answer(request + Self.smuggled)
        #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(answer)")
        #expect(answer.contains("must be a path beginning with"), "\(answer)")
        #expect(answer.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.count == 1)
        #expect(server.reached == 0)
        // The same path with its `/` is served.
        #expect(try server.base.client().send(method: "GET", path: "/stores/vault/state").bodyString == "reached GET /stores/vault/state 0")
    }

    @Test func soundRequestsStillPass() throws {
        let server = try CountingServer()
        let client = TestHTTPClient(port: server.base.port)
        #expect(try client.send(method: "POST", path: "/a", body: Array("hello".utf8)).bodyString == "reached POST /a 5")
        #expect(try client.send(method: "POST", path: "/b", headers: [("Transfer-Encoding", "chunked")],
                                body: Array("5\r\nhello\r\n0\r\n\r\n".utf8)).bodyString == "reached POST /b 5")
        #expect(try client.send(method: "POST", path: "/c", headers: [("transfer-encoding", "Chunked")],
                                body: Array("0\r\n\r\n".utf8)).bodyString == "reached POST /c 0")
        // Names that begin like a framing field's, blanks and tabs around values, empty values,
        // and a head of about 4 KB (within the test server's pool): all read as one line each.
        let many = (0..<60).map { ("X-Filler-\($0)", String(repeating: "v", count: 50)) }
        #expect(try client.send(method: "POST", path: "/e", headers: [
            ("Hostname", "h"), ("Content-Length-Hint", "1"), ("Transfer-Encoding-X", "y"), ("X-Empty", ""),
            ("X-Tabbed", "\t two\t"), ("Connection", "keep-alive"),
        ] + many, body: Array("hello".utf8)).bodyString == "reached POST /e 5")
        // HTTP/1.0 may leave Host out.
        let old = try server.answer("GET /d HTTP/1.0\r\n\r\n")
        #expect(old.hasPrefix("HTTP/1.1 200 ") && old.hasSuffix("reached GET /d 0"))
        #expect(client.connectionsOpened == 1)
        #expect(server.reached == 5)
    }
}

/// The `Content-Length` read in the framing pass (the body is made for it at the head's arrival).
@Suite struct ContentLengthParsingTests {
    private func parse(_ text: String) -> UInt64? {
        Array(text.utf8).withUnsafeBytes { RequestReader.contentLength($0) }
    }

    @Test func digitsWithBlanksAroundAreTheLength() {
        #expect(parse("19") == 19)
        #expect(parse(" 0 ") == 0)
        #expect(parse("\t1024") == 1024)
        #expect(parse("99999999999999999999999") == UInt64.max)
    }

    @Test func anythingElseIsNoLength() {
        #expect(parse("") == nil)
        #expect(parse("  ") == nil)
        #expect(parse("1a") == nil)
        #expect(parse("-1") == nil)
        #expect(parse("0x10") == nil)
    }

    @Test func aBodyArrivesWholeAfterItsLengthWasReadWithTheHead() throws {
        let server = try TestServer(responder: ClosureResponder { request in .ok(String(decoding: request.body, as: UTF8.self)) })
        let client = server.client()
        for size in [1, 100, 70_000] {
            let body = String(repeating: "x", count: size)
            #expect(try client.send(method: "POST", path: "/", body: Array(body.utf8)).bodyString == body)
        }
        #expect(try client.send(method: "POST", path: "/", headers: [("Content-Length", "0")]).bodyString == "")
    }
}

/// What a body holds before its bytes arrive.
@Suite struct RequestBodyReservationTests {
    /// A declared `Content-Length` reserves at most ``RequestBody/reservationLimit``: connections
    /// that declare the body limit and send nothing hold little each (found by a review: 1 MiB
    /// each at the default limit).
    @Test func aDeclaredLengthReservesAtMostTheReservationLimit() {
        let large = RequestBody(expectedLength: 1 << 20, limit: 1 << 20)
        #expect(large.bytes.capacity >= RequestBody.reservationLimit && large.bytes.capacity < 2 * RequestBody.reservationLimit)
        let small = RequestBody(expectedLength: 19, limit: 1 << 20)
        #expect(small.bytes.capacity >= 19 && small.bytes.capacity < 1_024)
        // A body past the reservation still arrives whole.
        let piece = [UInt8](repeating: 7, count: 300_000)
        piece.withUnsafeBytes { large.append($0, limit: 1 << 20) }
        #expect(large.bytes.count == 300_000)
    }
}
