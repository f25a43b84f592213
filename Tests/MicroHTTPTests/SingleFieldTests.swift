import HTTPTestSupport
import MicroHTTP
import Testing

/// Header fields the responder names as single (``Responder/singleFieldNames``) are refused
/// when repeated: `400` naming the field, before the responder sees the request.
@Suite struct SingleFieldTests {
    /// Answers with the `Idempotency-Key` it read; `Idempotency-Key` and `If-Match` are single.
    struct KeyEcho: Responder {
        var singleFieldNames: [String] { ["Idempotency-Key", "If-Match"] }

        func respond(to request: Request) -> Response {
            .ok("key \(request.headers["Idempotency-Key"] ?? "-") if-match \(request.headers.list("If-Match") ?? "-")")
        }
    }

    private static func send(_ headers: [(String, String)], method: String = "GET", body: String = "") throws -> TestHTTPResponse {
        let server = try TestServer(responder: KeyEcho())
        return try TestHTTPClient(port: server.port, timeout: .seconds(5))
            .send(method: method, path: "/x", headers: headers, body: Array(body.utf8))
    }

    @Test func aSecondIdempotencyKeyIsRefusedNamingTheField() throws {
        let response = try Self.send([("Idempotency-Key", "first"), ("Idempotency-Key", "second")], method: "POST", body: "{}")
        #expect(response.status == 400)
        #expect(response.bodyString.contains("more than one Idempotency-Key header field"), "\(response.bodyString)")
        #expect(response.headers["Connection"]?.lowercased() == "close")
    }

    @Test func namesAreMatchedIgnoringCase() throws {
        let response = try Self.send([("idempotency-key", "first"), ("IDEMPOTENCY-KEY", "second")])
        #expect(response.status == 400)
    }

    @Test func aListInOneIfMatchFieldIsAcceptedButTwoFieldsAreNot() throws {
        let one = try Self.send([("If-Match", "\"1\", \"2\"")])
        #expect(one.status == 200)
        #expect(one.bodyString == "key - if-match \"1\", \"2\"")
        let two = try Self.send([("If-Match", "\"1\""), ("If-Match", "\"2\"")])
        #expect(two.status == 400)
        #expect(two.bodyString.contains("If-Match"))
    }

    @Test func fieldsNotNamedSingleMayRepeat() throws {
        let response = try Self.send([("Idempotency-Key", "k"), ("Accept", "text/plain"), ("Accept", "application/json")])
        #expect(response.status == 200)
        #expect(response.bodyString.hasPrefix("key k "))
    }

    @Test func aResponderThatNamesNoFieldLetsEveryFieldRepeat() throws {
        let server = try TestServer(responder: ClosureResponder { request in .ok(request.headers["Idempotency-Key"] ?? "-") })
        let response = try TestHTTPClient(port: server.port, timeout: .seconds(5))
            .send(path: "/x", headers: [("Idempotency-Key", "first"), ("Idempotency-Key", "second")])
        #expect(response.status == 200)
    }

    /// A single field whose name is none of ``KnownFieldNames`` is checked by its name, beside
    /// the known ones checked by their bits; the answer names the first field seen twice.
    struct OtherNames: Responder {
        var singleFieldNames: [String] { ["X-Once", "Idempotency-Key"] }

        func respond(to request: Request) -> Response {
            .ok(request.headers["X-Once"] ?? "-")
        }
    }

    private static func sendToOtherNames(_ headers: [(String, String)]) throws -> TestHTTPResponse {
        let server = try TestServer(responder: OtherNames())
        return try TestHTTPClient(port: server.port, timeout: .seconds(5)).send(path: "/x", headers: headers)
    }

    @Test func aSingleFieldOfAnotherNameIsRefusedWhenRepeatedInAnyCase() throws {
        let once = try Self.sendToOtherNames([("X-Once", "1"), ("Idempotency-Key", "k")])
        #expect(once.status == 200)
        #expect(once.bodyString == "1")
        let twice = try Self.sendToOtherNames([("x-once", "1"), ("X-ONCE", "2")])
        #expect(twice.status == 400)
        #expect(twice.bodyString.contains("more than one X-Once header field"), "\(twice.bodyString)")
    }

    @Test func theAnswerNamesTheFirstFieldSeenTwice() throws {
        let knownFirst = try Self.sendToOtherNames([
            ("X-Once", "1"), ("Idempotency-Key", "a"), ("Idempotency-Key", "b"), ("X-Once", "2"),
        ])
        #expect(knownFirst.status == 400)
        #expect(knownFirst.bodyString.contains("more than one Idempotency-Key header field"), "\(knownFirst.bodyString)")
        let otherFirst = try Self.sendToOtherNames([
            ("Idempotency-Key", "a"), ("X-Once", "1"), ("X-Once", "2"), ("Idempotency-Key", "b"),
        ])
        #expect(otherFirst.status == 400)
        #expect(otherFirst.bodyString.contains("more than one X-Once header field"), "\(otherFirst.bodyString)")
    }
}
