import HTTPTestSupport
import Synchronization
import Testing
@testable import MicroHTTP

/// Responses made into libmicrohttpd's form once and sent to many requests
/// (``Response/preparedForReuse()``), over real sockets.
@Suite struct PreparedResponseTests {
    private static func answer(_ text: String = "{\"counter\":3}") -> Response {
        Response(
            status: 201,
            headers: ["Content-Type": "application/json", "ETag": "\"3-abc\"", "Cache-Control": "no-cache"],
            body: .bytes(Array(text.utf8))
        )
    }

    @Test func oneResponseIsPreparedWithEverythingItWasMadeOf() throws {
        let response = Self.answer().preparedForReuse()
        let prepared = try #require(response.prepared)
        #expect(prepared.status == 201)
        #expect(prepared.headers == Self.answer().headers)
        #expect(prepared.bytes == Array("{\"counter\":3}".utf8))
        #expect(prepared.isUnchanged(response))
    }

    @Test func aStreamOrAnInvalidStatusIsNotPrepared() {
        #expect(Response(status: 200, body: .stream(EventStream(maxPendingBytes: 1_024))).preparedForReuse().prepared == nil)
        #expect(Response(status: 99, body: .bytes([1])).preparedForReuse().prepared == nil)
    }

    @Test func aChangeAfterPreparingIsNoticed() throws {
        let response = Self.answer().preparedForReuse()
        let prepared = try #require(response.prepared)
        var added = response
        added.headers.add(name: "Vary", value: "Origin")
        var replaced = response
        replaced.headers.replaceOrAdd(name: "ETag", value: "\"4-abc\"")
        var body = response
        body.body = .bytes(Array("{}".utf8))
        var status = response
        status.status = 200
        for changed in [added, replaced, body, status] {
            #expect(!prepared.isUnchanged(changed))
        }
        // Equal contents in other storage are still the same response.
        var copied = response
        copied.body = .bytes(Array("{\"counter\":3}".utf8))
        #expect(prepared.isUnchanged(copied))
    }

    /// One prepared response answers every request of several connections on both worker
    /// threads at once; `HEAD` gets its head alone.
    @Test func aPreparedResponseIsSentWholeToEveryRequestThatGetsIt() throws {
        let shared = Self.answer().preparedForReuse()
        let server = try TestServer(responder: ClosureResponder { _ in shared })
        let port = server.port
        let errors = runOnThreads(4) { _ in
            let client = TestHTTPClient(port: port)
            for _ in 0..<50 {
                let response = try client.send(path: "/state")
                #expect(response.status == 201)
                #expect(response.bodyString == "{\"counter\":3}")
                #expect(response.headers["ETag"] == "\"3-abc\"")
                #expect(response.headers["Cache-Control"] == "no-cache")
                #expect(response.headers["Content-Type"] == "application/json")
                #expect(response.headers["Content-Length"] == "13")
            }
            #expect(client.connectionsOpened == 1)
        }
        #expect(errors.isEmpty)
        let head = try server.client().send(method: "HEAD", path: "/state")
        #expect(head.status == 201)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "13")
    }

    /// The object may go away as soon as the responder returns: libmicrohttpd holds its own
    /// reference to the response until it has sent it.
    @Test func aPreparedResponseDroppedRightAfterItWasQueuedIsStillSentWhole() throws {
        let made = Atomic<Int>(0)
        let server = try TestServer(responder: ClosureResponder { _ in
            let number = made.add(1, ordering: .relaxed).newValue
            return Self.answer(String(repeating: "\(number % 10)", count: 20_000)).preparedForReuse()
        })
        let client = server.client()
        for _ in 0..<30 {
            let response = try client.send(path: "/")
            let digits = Set(response.body)
            #expect(response.body.count == 20_000)
            #expect(digits.count == 1)
        }
    }

    @Test func aFieldAddedAfterPreparingIsSent() throws {
        let server = try TestServer(responder: ClosureResponder { _ in
            var response = Self.answer().preparedForReuse()
            response.headers.add(name: "Access-Control-Allow-Origin", value: "https://app.example")
            return response
        })
        let response = try server.client().send(path: "/")
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(response.headers["ETag"] == "\"3-abc\"")
        #expect(response.bodyString == "{\"counter\":3}")
    }

    @Test func aBodyOrStatusReplacedAfterPreparingIsSent() throws {
        let server = try TestServer(responder: ClosureResponder { request in
            var response = Self.answer().preparedForReuse()
            if request.path == "/body" {
                response.body = .bytes(Array("replaced".utf8))
            } else {
                response.status = 202
            }
            return response
        })
        let client = server.client()
        #expect(try client.send(path: "/body").bodyString == "replaced")
        #expect(try client.send(path: "/status").status == 202)
    }

    /// A server that stops taking requests closes each connection after its answer: a prepared
    /// answer sent then carries `Connection: close` too.
    @Test func aPreparedAnswerSentWhileTheServerStopsClosesTheConnection() throws {
        let entered = Mailbox<Bool>()
        let release = Mailbox<Bool>()
        let shared = Self.answer().preparedForReuse()
        let server = try TestServer(responder: ClosureResponder { _ in
            entered.post(true)
            _ = release.next(timeout: .seconds(5))
            return shared
        })
        let answers = Mailbox<TestHTTPResponse>()
        let port = server.port
        let errors = runOnThreads(2) { index in
            if index == 0 {
                answers.post(try TestHTTPClient(port: port).send(path: "/"))
            } else {
                guard entered.next(timeout: .seconds(5)) == true else { return }
                #expect(!server.server.stopTakingRequests(timeout: .milliseconds(50)))
                release.post(true)
                #expect(server.server.stopTakingRequests(timeout: .seconds(5)))
            }
        }
        #expect(errors.isEmpty)
        let answer = try #require(answers.next(timeout: .seconds(5)))
        #expect(answer.status == 201)
        #expect(answer.bodyString == "{\"counter\":3}")
        #expect(answer.headers["Connection"]?.lowercased() == "close")
    }
}
