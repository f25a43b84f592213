import ExampleApp
import Foundation
import ReMVVMClient
import Testing

/// What the client sends, without a server: paths under a store's base URL, headers, bodies.
@Suite struct RequestShapeTests {
    @Test func requestsGoUnderTheStoresBaseURLWithNamesPercentEncoded() async throws {
        let transport = CannedTransport(status: 200, body: #"{"version":7}"#)
        let client = try ReMVVMClient(url: "http://127.0.0.1:1/stores/room-1/", token: "t+k", actions: exampleActions, transport: transport)
        try await client.dispatch(Login(firstName: "Ada", lastName: "L/ovelace"), ifMatch: VersionTag("6-3f9a2c1b"))
        try await client.command("log in", of: "login/screen", key: "a&b=c é")
        let requests = transport.requests
        #expect(requests.map(\.url.absoluteString) == [
            "http://127.0.0.1:1/stores/room-1/actions",
            "http://127.0.0.1:1/stores/room-1/viewmodels/login%2Fscreen/commands/log%20in?key=a%26b%3Dc%20%C3%A9",
        ])
        let dispatch = try #require(requests.first)
        #expect(dispatch.header("Authorization") == "Bearer t+k")
        #expect(dispatch.header("Content-Type") == "application/json")
        #expect(dispatch.header("If-Match") == "\"6-3f9a2c1b\"")
        let key = try #require(dispatch.header("Idempotency-Key"))
        #expect(key.count == 36 && UUID(uuidString: key) != nil)
        #expect(Array(key)[14] == "7", "a time-ordered key: a version 7 UUID")
        #expect(dispatch.body.map { String(decoding: $0, as: UTF8.self) } == #"{"payload":{"firstName":"Ada","lastName":"L/ovelace"},"type":"login"}"#)
        #expect(requests.last?.body.map { String(decoding: $0, as: UTF8.self) } == "{}")
    }

    @Test func aURLThatIsNoStoresBaseURLIsRefused() {
        for text in ["127.0.0.1:8080", "ftp://host/", "http://host/?x=1", "not a url"] {
            #expect(throws: ClientError.self, "\(text)") { try ReMVVMClient(url: text) }
        }
    }
}

/// Answers every request with one canned answer and keeps the requests.
final class CannedTransport: HTTPTransport {
    private let answer: HTTPResponse
    private let log = RequestLog()

    init(status: Int, body: String) {
        answer = HTTPResponse(head: HTTPResponseHead(status: status, headers: ["Content-Type": "application/json"]), body: Array(body.utf8))
    }

    var requests: [HTTPRequest] {
        log.requests("", "")
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.sent(request)
        return answer
    }

    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        log.sent(request)
        return HTTPStreamingResponse(head: answer.head, body: AsyncThrowingStream { $0.finish() })
    }
}
