import HTTPTestSupport
@testable import MicroHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Sends written straight to a waiting stream's socket, and what happens when the socket cannot
/// take them whole.
@Suite struct DirectWriteTests {
    @Test func sendsToAWaitingStreamGoStraightToTheSocket() throws {
        let server = try StreamingServer()
        let (client, stream) = try server.subscribe()
        for id in 1...20 {
            try waitUntilWaiting(stream)
            let before = server.server.streamWriteStatistics
            #expect(stream.send(sseEvent(id: id, data: "direct \(id)")))
            let after = server.server.streamWriteStatistics
            #expect(after.direct == before.direct + 1)
            #expect(after.throughLibmicrohttpd == before.throughLibmicrohttpd)
            let event = try #require(try client.nextEvent(timeout: .seconds(5)))
            #expect(event.id == "\(id)")
            #expect(event.data == "direct \(id)")
        }
        // Each send was its own chunk, and the chunked body goes on correctly after them.
        #expect(client.chunksReceived == 20)
        stream.close()
        #expect(try client.waitForEnd(timeout: .seconds(5)) == .clean)
    }

    @Test func anHTTP10StreamIsWrittenUnframedByLibmicrohttpd() throws {
        let server = try StreamingServer()
        let client = TestHTTPClient(port: server.port)
        try client.sendRaw(Array("GET /events HTTP/1.0\r\nHost: x\r\n\r\n".utf8))
        let stream = try #require(server.streams.next(timeout: .seconds(5)))
        try waitUntilWaiting(stream)
        let events = (1...3).map { sseEvent(id: $0, data: "plain \($0)") }
        for event in events {
            stream.send(event)
        }
        stream.close()
        let response = try client.readResponse()
        #expect(!response.wasChunked)
        #expect(response.body == events.flatMap { $0 })
        #expect(server.server.streamWriteStatistics.direct == 0)
    }

    @Test func aLargeEventToASlowReaderIsFinishedWhenTheSocketDrains() throws {
        let server = try StreamingServer(maxPendingBytes: 4 << 20)
        let (client, stream) = try narrowSubscription(to: server)
        // Far more than the socket takes at once: the rest waits for the client to read.
        let large = String(repeating: "L", count: 256 << 10)
        #expect(stream.send(sseEvent(id: 1, data: large)))
        #expect(server.server.streamWriteStatistics.split == 1)
        #expect(stream.pendingBytes > 0)
        // Sent while the chunk is unfinished: queued behind it.
        for id in 2...4 {
            #expect(stream.send(sseEvent(id: id, data: "small \(id)")))
        }

        let first = try #require(try client.nextEvent(timeout: .seconds(10)))
        #expect(first.id == "1")
        #expect(first.data == large)
        for id in 2...4 {
            #expect(try client.nextEvent(timeout: .seconds(5))?.data == "small \(id)")
        }
        // The small ones left together, through libmicrohttpd, once the large one was out.
        #expect(server.server.streamWriteStatistics.throughLibmicrohttpd >= 1)
        #expect(stream.pendingBytes == 0)

        // Then the stream waits again and goes back to direct writes.
        try waitUntilWaiting(stream)
        let direct = server.server.streamWriteStatistics.direct
        #expect(stream.send(sseEvent(id: 5, data: "after")))
        #expect(server.server.streamWriteStatistics.direct == direct + 1)
        #expect(try client.nextEvent(timeout: .seconds(5))?.data == "after")
    }

    @Test func eventsQueuedWhileTheClientIsBehindLeaveTogether() throws {
        let server = try StreamingServer(maxPendingBytes: 8 << 20)
        let (client, stream) = try narrowSubscription(to: server)
        // The client does not read while these are sent: once its socket is full, the rest
        // queue, and each write then carries as many as fit.
        let count = 2000
        for id in 1...count {
            #expect(stream.send(sseEvent(id: id, data: String(repeating: "q", count: 400))))
        }
        for id in 1...count {
            #expect(try client.nextEvent(timeout: .seconds(10))?.id == "\(id)")
        }
        #expect(client.chunksReceived < count / 2)
    }

    @Test func shutdownGivesUpAWriteStuckMidChunk() throws {
        let server = try StreamingServer(maxPendingBytes: 64 << 20)
        let (stalled, stream) = try narrowSubscription(to: server)
        #expect(stream.send([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)))
        #expect(server.server.streamWriteStatistics.split == 1)

        let elapsed = ContinuousClock().measure { server.server.shutdown(timeout: .milliseconds(300)) }
        #expect(elapsed < .seconds(3))
        #expect(server.terminations.next(timeout: .seconds(5)) == .serverShutdown)
        #expect(server.server.openStreamCount == 0)
        // The chunk could not be completed, so the body does not end cleanly.
        #expect(try stalled.waitForEnd(timeout: .seconds(10)) == .aborted)
    }

    @Test func overflowWhileAChunkIsUnfinishedCutsTheClientOff() throws {
        let server = try StreamingServer(maxPendingBytes: 1 << 20)
        let (stalled, stream) = try narrowSubscription(to: server)
        #expect(stream.send([UInt8](repeating: UInt8(ascii: "x"), count: 900 << 10)))
        #expect(server.server.streamWriteStatistics.split == 1)
        var sends = 0
        while stream.send([UInt8](repeating: UInt8(ascii: "y"), count: 64 << 10)), sends < 1000 {
            sends += 1
        }
        #expect(sends < 1000)
        #expect(server.terminations.next(timeout: .seconds(5)) == .overflow)
        #expect(try stalled.waitForEnd(timeout: .seconds(10)) == .aborted)
        // libmicrohttpd lets the connection go once it notices the reset socket.
        #expect(server.server.waitForOccupancy(timeout: .seconds(5)) { server.server.openStreamCount == 0 }, "the connection is released")
    }
}

/// Subscribes a client with a small receive buffer and waits until its stream waits for sends,
/// the server side's send buffer shrunk: a large send cannot go out at once.
private func narrowSubscription(to server: StreamingServer) throws -> (SSEClient, EventStream) {
    let (client, stream) = try server.subscribe(receiveBufferSize: 4096)
    try waitUntilWaiting(stream)
    shrinkSendBuffer(of: stream)
    return (client, stream)
}

/// Fixes the server side's socket send buffer at a few kilobytes (loopback sockets otherwise
/// grow theirs to megabytes), so that large writes cannot go out at once.
private func shrinkSendBuffer(of stream: EventStream) {
    guard let socket = stream.state.withLock({ $0.connection?.socket }) else { return }
    var size: Int32 = 4096
    _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
}
