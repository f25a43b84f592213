import HTTPTestSupport
import MicroHTTP
import Testing

/// ``PendingResponse``: a responder answers later, from another thread, while the connection waits
/// suspended and the worker thread serves others.
@Suite struct PendingResponseTests {
    /// A server whose `/later/<n>` answers are completed by the test; `/now` answers at once.
    final class DeferringServer: Sendable {
        let base: TestServer
        let pending = Mailbox<(path: String, body: [UInt8], response: PendingResponse)>()

        init(workerThreads: Int = 1, configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
            let pending = pending
            var router = Router()
            router.add(.GET, "/now") { _, _ in .text("now") }
            let later: @Sendable (Request, RouteParameters) -> Response = { request, _ in
                let response = PendingResponse()
                pending.post((request.path, request.body, response))
                return Response(pending: response)
            }
            router.add(.GET, "/later/:n", later)
            router.add(.POST, "/later/:n", later)
            base = try TestServer(router: router) { configuration in
                configuration.workerThreads = workerThreads
                configure(&configuration)
            }
        }

        var port: Int { base.port }
    }

    @Test func aPendingResponseIsSentWhenCompletedWhileTheOnlyWorkerServesOthers() throws {
        let server = try DeferringServer(workerThreads: 1)
        let waiting = Mailbox<TestHTTPResponse>()
        let errors = runOnThreads(2) { index in
            if index == 0 {
                waiting.post(try TestHTTPClient(port: server.port, timeout: .seconds(10)).send(path: "/later/1"))
            } else {
                let request = try #require(server.pending.next(timeout: .seconds(5)))
                // The request waits; the one worker thread still answers another connection.
                #expect(try TestHTTPClient(port: server.port).send(path: "/now").bodyString == "now")
                #expect(waiting.snapshot.isEmpty, "not answered before completion")
                request.response.complete(.text("done \(request.path)", status: 201))
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let response = try #require(waiting.next(timeout: .seconds(5)))
        #expect(response.status == 201)
        #expect(response.bodyString == "done /later/1")
    }

    @Test func aResponseCompletedBeforeTheResponderReturnsGoesOutAtOnce() throws {
        var router = Router()
        router.add(.GET, "/ready") { _, _ in
            let response = PendingResponse()
            response.complete(.text("ready"))
            return Response(pending: response)
        }
        let server = try TestServer(router: router)
        let client = TestHTTPClient(port: server.port)
        #expect(try client.send(path: "/ready").bodyString == "ready")
        #expect(try client.send(path: "/ready").bodyString == "ready", "the connection stays usable")
    }

    @Test func manyPendingRequestsCompletedInAnyOrderEachGetTheirOwnAnswer() throws {
        let server = try DeferringServer(workerThreads: 1)
        let count = 200
        let answers = Mailbox<(Int, TestHTTPResponse)>()
        let errors = runOnThreads(count + 1) { index in
            if index < count {
                let client = TestHTTPClient(port: server.port, timeout: .seconds(20))
                let body = Array("body \(index)".utf8)
                answers.post((index, try client.send(method: "POST", path: "/later/\(index)", body: body)))
            } else {
                var requests = server.pending.next(count, timeout: .seconds(20))
                #expect(requests.count == count)
                requests.shuffle()
                for request in requests {
                    request.response.complete(.text("\(request.path) got \(String(decoding: request.body, as: UTF8.self))"))
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let received = answers.next(count, timeout: .seconds(5))
        #expect(received.count == count)
        for (index, response) in received {
            #expect(response.bodyString == "/later/\(index) got body \(index)")
        }
    }

    @Test func onlyTheFirstCompletionCounts() throws {
        let server = try DeferringServer()
        let answer = Mailbox<TestHTTPResponse>()
        let errors = runOnThreads(2) { index in
            if index == 0 {
                answer.post(try TestHTTPClient(port: server.port).send(path: "/later/1"))
            } else {
                let request = try #require(server.pending.next(timeout: .seconds(5)))
                request.response.complete(.text("first"))
                request.response.complete(.text("second"))
                #expect(request.response.isComplete)
            }
        }
        #expect(errors.isEmpty)
        #expect(answer.next(timeout: .seconds(5))?.bodyString == "first")
    }

    @Test func shutdownAnswersANeverCompletedResponseWith503AndStops() throws {
        let server = try DeferringServer()
        let answer = Mailbox<TestHTTPResponse>()
        let errors = runOnThreads(2) { index in
            if index == 0 {
                answer.post(try TestHTTPClient(port: server.port, timeout: .seconds(10)).send(path: "/later/1"))
            } else {
                _ = try #require(server.pending.next(timeout: .seconds(5)))
                server.base.server.shutdown(timeout: .milliseconds(300))
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let response = try #require(answer.next(timeout: .seconds(5)))
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
    }

    /// A request still in its responder when the shutdown answered every waiting response, and
    /// whose responder then returns a pending response: answered 503 at once, not suspended
    /// (libmicrohttpd 0.9.75 stops with a panic, SIGABRT, on a suspended connection; found by a
    /// review). The late responder is let go by the completion of the first one's response.
    @Test func aResponseThatWouldWaitAfterTheShutdownAnsweredTheOthersGets503AtOnce() throws {
        let entered = Mailbox<Void>()
        let firstArrived = Mailbox<Void>()
        let letGo = Mailbox<Void>()
        let first = PendingResponse()
        first.whenCompleted { _ in letGo.post(()) }
        var router = Router()
        router.add(.GET, "/first") { _, _ in
            firstArrived.post(())
            return Response(pending: first)
        }
        router.add(.GET, "/late") { _, _ in
            entered.post(())
            _ = letGo.next(timeout: .seconds(20))
            return Response(pending: PendingResponse())  // never completed
        }
        let server = try TestServer(router: router)
        let answers = Mailbox<(String, TestHTTPResponse)>()
        let errors = runOnThreads(3) { index in
            switch index {
            case 0: answers.post(("first", try TestHTTPClient(port: server.port, timeout: .seconds(20)).send(path: "/first")))
            case 1:
                // After /first reached its responder: the shutdown (which first waits for the
                // requests in flight) then finds its response waiting.
                _ = try #require(firstArrived.next(timeout: .seconds(10)))
                answers.post(("late", try TestHTTPClient(port: server.port, timeout: .seconds(20)).send(path: "/late")))
            default:
                _ = try #require(entered.next(timeout: .seconds(10)))
                server.server.shutdown(timeout: .milliseconds(200))
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let received = answers.next(2, timeout: .seconds(10))
        #expect(received.count == 2)
        for (path, answer) in received {
            #expect(answer.status == 503, "\(path)")
            #expect(answer.headers["Retry-After"] == "1", "\(path)")
        }
    }
}
