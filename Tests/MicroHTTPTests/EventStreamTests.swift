import HTTPTestSupport
import MicroHTTP
import Testing

/// Event streams over real connections, each test with direct writes and through libmicrohttpd.
@Suite struct EventStreamTests {
    @Test(arguments: StreamWrites.allCases)
    func streamResponseIsChunkedEventStream(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let (client, _) = try server.subscribe()
        #expect(client.status == 200)
        #expect(client.headers["Content-Type"] == "text/event-stream")
        #expect(client.headers["Transfer-Encoding"]?.lowercased() == "chunked")
        #expect(server.server.openStreamCount == 1)
    }

    @Test(arguments: StreamWrites.allCases)
    func eventsSentBeforeTheStreamIsAttachedAreDelivered(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, initialEvents: [sseEvent(id: 1, data: "first"), sseEvent(id: 2, data: "second")])
        let (client, _) = try server.subscribe()
        #expect(try client.nextEvent(timeout: .seconds(5)) == SSEEvent(id: "1", event: "state", data: "first"))
        #expect(try client.nextEvent(timeout: .seconds(5)) == SSEEvent(id: "2", event: "state", data: "second"))
    }

    @Test(arguments: StreamWrites.allCases)
    func eventsArriveInOrder(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let (client, stream) = try server.subscribe()
        for id in 1...500 {
            #expect(stream.send(sseEvent(id: id, data: #"{"n":\#(id)}"#)))
        }
        for id in 1...500 {
            let event = try #require(try client.nextEvent(timeout: .seconds(5)))
            #expect(event.id == "\(id)")
            #expect(event.data == #"{"n":\#(id)}"#)
        }
    }

    @Test(arguments: StreamWrites.allCases)
    func eventsQueuedTogetherLeaveInOneWrite(writes: StreamWrites) throws {
        let initial = (1...5).map { sseEvent(id: $0, data: "queued \($0)") }
        let server = try StreamingServer(writes: writes, initialEvents: initial)
        let (client, _) = try server.subscribe()
        for id in 1...5 {
            #expect(try client.nextEvent(timeout: .seconds(5))?.id == "\(id)")
        }
        #expect(client.chunksReceived == 1)
    }

    @Test(arguments: StreamWrites.allCases)
    func sharedEventBytesGoToEveryStream(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let subscribers = try (0..<5).map { _ in try server.subscribe() }
        let event = sseEvent(id: 9, data: "to all")
        for (_, stream) in subscribers {
            #expect(stream.send(event))
        }
        for (client, _) in subscribers {
            #expect(try client.nextEvent(timeout: .seconds(5))?.data == "to all")
        }
    }

    @Test(arguments: StreamWrites.allCases)
    func closeFlushesThenEndsCleanly(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let (client, stream) = try server.subscribe()
        stream.send(sseEvent(id: 1, data: "last words"))
        stream.close()
        #expect(stream.isClosed)
        #expect(!stream.send(sseEvent(id: 2, data: "too late")))
        #expect(try client.nextEvent(timeout: .seconds(5))?.data == "last words")
        #expect(try client.nextEvent(timeout: .seconds(5)) == nil)
        #expect(client.streamEnd == .clean)
        #expect(server.terminations.next(timeout: .seconds(5)) == .closed)
    }

    @Test(arguments: StreamWrites.allCases)
    func connectionIsReusableAfterAStreamEnds(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let client = TestHTTPClient(port: server.port)
        try client.sendRaw(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let stream = try #require(server.streams.next(timeout: .seconds(5)))
        stream.send(sseEvent(id: 1, data: "only"))
        stream.close()
        let events = try client.readResponse()
        #expect(events.wasChunked)
        #expect(events.bodyString == "id: 1\nevent: state\ndata: only\n\n")
        #expect(try client.send(path: "/plain").bodyString == "plain")
        #expect(client.connectionsOpened == 1)
    }

    @Test func heartbeatsAreSingleCommentLinesThatNeverMakeAnEmptyEvent() throws {
        let server = try StreamingServer { $0.heartbeatInterval = .milliseconds(200) }
        let (client, stream) = try server.subscribe()
        for _ in 0..<2 {
            #expect(try client.nextItem(timeout: .seconds(5)) == .comment("ping"))
        }
        #expect(client.comments == ["ping", "ping"])
        // No blank line follows a heartbeat: the next thing a parser dispatches is a real event.
        stream.send(sseEvent(id: 7, data: "after"))
        var next = try client.nextItem(timeout: .seconds(5))
        while next == .comment("ping") {
            next = try client.nextItem(timeout: .seconds(5))
        }
        #expect(next == .event(SSEEvent(id: "7", event: "state", data: "after")))
        #expect(client.emptyBlocks == 0)
    }

    @Test(arguments: StreamWrites.allCases)
    func clientLeavingMidStreamTerminatesWithClientGone(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, initialEvents: [sseEvent(id: 1, data: "hello")]) {
            $0.heartbeatInterval = .milliseconds(100)
        }
        let (client, stream) = try server.subscribe()
        #expect(try client.nextEvent(timeout: .seconds(5))?.data == "hello")
        client.close()
        #expect(server.terminations.next(timeout: .seconds(10)) == .clientGone)
        #expect(stream.isClosed)
        #expect(!stream.send(sseEvent(id: 2, data: "nobody")))
        #expect(server.server.waitForOccupancy(timeout: .seconds(5)) { server.server.openStreamCount == 0 })
    }

    @Test(arguments: StreamWrites.allCases)
    func stalledClientOverflowsWhileAnotherStreamContinues(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, maxPendingBytes: 64 * 1024)
        let (stalled, stalledStream) = try server.subscribe(receiveBufferSize: 4096)
        let (healthy, healthyStream) = try server.subscribe()
        #expect(healthyStream.send(sseEvent(id: 1, data: "before")))

        // The stalled client never reads: its socket buffers fill, then the backlog, then overflow.
        let payload = sseEvent(id: 0, data: String(repeating: "x", count: 1000))
        var sends = 0
        while stalledStream.send(payload), sends < 200_000 {
            sends += 1
        }
        #expect(sends < 200_000)
        #expect(stalledStream.isClosed)
        #expect(stalledStream.pendingBytes <= payload.count)
        #expect(server.terminations.next(timeout: .seconds(5)) == .overflow)

        #expect(healthyStream.send(sseEvent(id: 2, data: "after")))
        #expect(try healthy.nextEvent(timeout: .seconds(5))?.data == "before")
        #expect(try healthy.nextEvent(timeout: .seconds(5))?.data == "after")
        #expect(!healthyStream.isClosed)
        _ = stalled
    }

    @Test(arguments: StreamWrites.allCases)
    func anEventLargerThanTheBacklogLimitReachesAClientThatKeepsUp(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, maxPendingBytes: 100)
        let (client, stream) = try server.subscribe()
        #expect(stream.send(sseEvent(id: 1, data: "fits")))
        #expect(try client.nextEvent(timeout: .seconds(5))?.data == "fits")
        // The limit bounds how far a client lags, not the size of one event.
        let large = String(repeating: "z", count: 5000)
        #expect(stream.send(sseEvent(id: 2, data: large)))
        #expect(try client.nextEvent(timeout: .seconds(5))?.data == large)
        #expect(!stream.isClosed)
    }

    @Test(arguments: StreamWrites.allCases)
    func stalledClientIsCutOffAtOnceDespiteFullSocketBuffers(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, maxPendingBytes: 64 * 1024)
        let (stalled, stream) = try server.subscribe(receiveBufferSize: 1024)
        let (healthy, healthyStream) = try server.subscribe()
        // The healthy client reads each event before the next is sent; the stalled one never
        // reads, so the kernel's buffers fill (megabytes on loopback), then the backlog.
        var id = 0
        while stream.send(sseEvent(id: id, data: String(repeating: "x", count: 8000))), id < 10_000 {
            healthyStream.send(sseEvent(id: id, data: "ok"))
            #expect(try healthy.nextEvent(timeout: .seconds(5))?.id == "\(id)")
            id += 1
        }
        #expect(server.terminations.next(timeout: .seconds(5)) == .overflow)
        // What the kernel had queued is discarded: the client reaches the end quickly.
        #expect(try stalled.waitForEnd(timeout: .seconds(5)) == .aborted)
        // libmicrohttpd releases the response (which removes the stream) after it has closed
        // the socket, so the client may see the end first: wait for the removal.
        #expect(server.server.waitForOccupancy(timeout: .seconds(5)) { server.server.openStreamCount == 1 })
    }

    @Test(arguments: StreamWrites.allCases)
    func overflowBeforeAttachmentCutsTheConnectionOff(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, 
            maxPendingBytes: 10,
            initialEvents: [Array(repeating: 1, count: 6), Array(repeating: 2, count: 6)]
        )
        let (client, _) = try server.subscribe()
        #expect(server.terminations.next(timeout: .seconds(5)) == .overflow)
        #expect(try client.waitForEnd(timeout: .seconds(5)) == .aborted)
    }

    @Test(arguments: StreamWrites.allCases)
    func headOnAStreamRouteEndsTheStream(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let client = TestHTTPClient(port: server.port)
        let response = try client.send(method: "HEAD", path: "/events")
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        // The documented difference from GET's head (docs/http-api.md, "Server-sent events"):
        // a zero length, not chunked framing, which libmicrohttpd 0.9.75 would follow with a
        // terminator that corrupts the connection.
        #expect(response.headers["Content-Length"] == "0")
        #expect(response.headers["Transfer-Encoding"] == nil)
        #expect(server.terminations.next(timeout: .seconds(5)) == .clientGone)
        #expect(try client.send(path: "/plain").bodyString == "plain")
    }

    @Test func streamReturnedTwiceServesOnlyTheFirstResponse() throws {
        let shared = EventStream(maxPendingBytes: 1024)
        let server = try TestServer(responder: ClosureResponder { _ in
            Response(status: 200, headers: ["Content-Type": "text/event-stream"], body: .stream(shared))
        })
        let first = try SSEClient(port: server.port, path: "/")
        #expect(first.status == 200)
        #expect(try server.client().send(path: "/").status == 500)
        shared.send(sseEvent(id: 1, data: "one"))
        #expect(try first.nextEvent(timeout: .seconds(5))?.data == "one")
    }
}
