import HTTPTestSupport
import MicroHTTP
import Synchronization
import Testing

/// Graceful shutdown with open streams and requests.
@Suite struct ShutdownTests {
    @Test func shutdownWithAHundredOpenStreamsEndsEveryStreamQuickly() throws {
        let server = try StreamingServer()
        let subscribers = try (0..<100).map { _ in try server.subscribe() }
        #expect(server.server.openStreamCount == 100)
        for (index, (_, stream)) in subscribers.enumerated() {
            stream.send(sseEvent(id: index, data: "pending \(index)"))
        }

        let clock = ContinuousClock()
        let elapsed = clock.measure { server.server.shutdown(timeout: .seconds(5)) }
        #expect(elapsed < .seconds(2))

        #expect(server.terminations.next(100, timeout: .seconds(5)) == Array(repeating: .serverShutdown, count: 100))
        #expect(server.server.openStreamCount == 0)
        for (index, (client, stream)) in subscribers.enumerated() {
            #expect(stream.isClosed)
            // What was queued is flushed, then the response ends with its terminator.
            #expect(try client.nextEvent(timeout: .seconds(5))?.data == "pending \(index)")
            #expect(try client.waitForEnd(timeout: .seconds(5)) == .clean)
        }
    }

    @Test func stalledSubscriberDoesNotHoldShutdownPastItsTimeout() throws {
        let server = try StreamingServer(maxPendingBytes: 256 << 20)
        let (stalled, stream) = try server.subscribe(receiveBufferSize: 4096)
        // Far more than the socket buffers hold: the backlog cannot be flushed.
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<32 {
            stream.send(payload)
        }
        let elapsed = ContinuousClock().measure { server.server.shutdown(timeout: .milliseconds(500)) }
        #expect(elapsed < .seconds(3))
        #expect(server.terminations.next(timeout: .seconds(5)) == .serverShutdown)
        #expect(server.server.openStreamCount == 0)
        _ = stalled
    }

    @Test func shutdownIsIdempotent() throws {
        let server = try StreamingServer()
        server.server.shutdown()
        server.server.shutdown()
        #expect(throws: HTTPServerError.self) { try server.server.start() }
    }

    @Test func concurrentShutdownCallsAllReturnAfterTheServerStopped() throws {
        let server = try StreamingServer()
        let subscribers = try (0..<10).map { _ in try server.subscribe() }
        let port = server.port
        let errors = runOnThreads(4) { _ in
            server.server.shutdown(timeout: .seconds(5))
            // Stopped for every caller: nothing listens any more.
            if (try? TestHTTPClient(port: port, timeout: .seconds(1)).send(path: "/plain")) != nil {
                throw TestHTTPError(code: .malformedResponse, message: "Server still answering after shutdown returned")
            }
        }
        #expect(errors.isEmpty)
        #expect(server.terminations.next(10, timeout: .seconds(5)).count == 10)
        _ = subscribers
    }

    @Test func shutdownBeforeStartIsHarmless() {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(),
            responder: ClosureResponder { _ in .ok("x") },
            logger: .init(label: "test")
        )
        server.shutdown()
        #expect(server.port == 0)
    }

    @Test func streamOpenedDuringShutdownEndsImmediately() throws {
        let server = try StreamingServer()
        let (client, _) = try server.subscribe()
        server.server.shutdown()
        #expect(try client.waitForEnd(timeout: .seconds(5)) == .clean)
    }

    @Test func idleKeepAliveConnectionsDoNotDelayShutdown() throws {
        let server = try StreamingServer()
        let clients = (0..<20).map { _ in TestHTTPClient(port: server.port) }
        for client in clients {
            #expect(try client.send(path: "/plain").status == 200)
        }
        let elapsed = ContinuousClock().measure { server.server.shutdown(timeout: .seconds(5)) }
        #expect(elapsed < .seconds(2))
        for client in clients {
            #expect(client.waitForServerClose(timeout: .seconds(5)))
        }
    }

    @Test func afterItStopsTakingRequestsAKeepAliveRequestGets503WithRetryAfterAndTheConnectionCloses() throws {
        let server = try TestServer(responder: ClosureResponder { _ in .ok("hello") })
        let client = server.client()
        #expect(try client.send(path: "/").status == 200)
        #expect(server.server.stopTakingRequests(timeout: .seconds(5)))

        let refused = try client.send(path: "/")
        #expect(refused.status == 503)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["Connection"]?.lowercased() == "close")
        #expect(client.waitForServerClose(timeout: .seconds(5)))
        // A new connection is closed at once, without an answer.
        #expect(throws: TestHTTPError.self) { try TestHTTPClient(port: server.port, timeout: .seconds(5)).send(path: "/") }
    }

    @Test func aRequestAlreadyInTheResponderFinishesBeforeStopTakingRequestsReturns() throws {
        let entered = Mailbox<Bool>()
        let release = Mailbox<Bool>()
        let finished = Atomic<Bool>(false)
        let server = try TestServer(responder: ClosureResponder { _ in
            entered.post(true)
            _ = release.next(timeout: .seconds(5))
            finished.store(true, ordering: .sequentiallyConsistent)
            return .ok("done")
        })
        let answers = Mailbox<Int>()
        let port = server.port
        let errors = runOnThreads(2) { index in
            if index == 0 {
                answers.post(try TestHTTPClient(port: port).send(path: "/").status)
            } else {
                guard entered.next(timeout: .seconds(5)) == true else { return }
                // The request is held inside the responder: stopping waits for it.
                #expect(!server.server.stopTakingRequests(timeout: .milliseconds(100)))
                release.post(true)
                #expect(server.server.stopTakingRequests(timeout: .seconds(5)))
                let hasFinished = finished.load(ordering: .sequentiallyConsistent)
                #expect(hasFinished)
            }
        }
        #expect(errors.isEmpty)
        #expect(answers.next(timeout: .seconds(5)) == 200)
    }
}
