import HTTPTestSupport
@testable import MicroHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a client that stops reading, or leaves, costs: bounded memory, a bounded kernel buffer,
/// and a connection slot that is given back at once.
@Suite struct StalledAndClosedStreamTests {
    @Test func aPartialDirectWriteKeepsASliceOfTheSentArrayNotACopy() throws {
        let server = try StreamingServer(maxPendingBytes: 4 << 20)
        let (client, stream) = try server.subscribe(receiveBufferSize: 4096)
        try waitUntilWaiting(stream)
        let large = sseEvent(id: 1, data: String(repeating: "L", count: 512 << 10))
        #expect(stream.send(large))
        #expect(server.server.streamWriteStatistics.split == 1)

        let payload = try #require(stream.state.withLock { $0.unfinishedChunk?.payload })
        let sentStart = large.withUnsafeBufferPointer { $0.baseAddress }
        let keptStart = payload.withUnsafeBufferPointer { $0.baseAddress }
        #expect(keptStart == sentStart.map { $0 + (large.count - payload.count) }, "the remainder points into the sent array")
        // And the client still gets the whole event.
        #expect(try client.nextEvent(timeout: .seconds(10))?.data.count == 512 << 10)
    }

    @Test func eventStreamSocketsGetTheConfiguredKernelSendBuffer() throws {
        let server = try StreamingServer { $0.streamSendBufferBytes = 100_000 }
        let (client, stream) = try server.subscribe()
        defer { client.close() }
        try waitUntilWaiting(stream)
        let socket = try #require(stream.state.withLock { $0.connection?.socket })
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0)
        #expect(size == 200_000, "Linux reports twice the value set")
    }

    @Test(arguments: StreamWrites.allCases)
    func aClientThatReadsNothingForAHeartbeatIntervalWhileBytesWaitIsCutOff(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, maxPendingBytes: 64 << 20) { $0.heartbeatInterval = .milliseconds(200) }
        let (client, stream) = try server.subscribe(receiveBufferSize: 4096)
        try waitUntilWaiting(stream)
        // Far below the backlog limit, far above what the socket buffers hold: it waits for good.
        #expect(stream.send(sseEvent(id: 1, data: String(repeating: "S", count: 2 << 20))))
        #expect(server.terminations.next(timeout: .seconds(5)) == .stalled)
        #expect(stream.pendingBytes == 0, "the backlog is dropped")
        #expect(try client.waitForEnd(timeout: .seconds(5)) == .aborted)
    }

    @Test(arguments: StreamWrites.allCases)
    func aClientThatClosesItsWaitingStreamEndsItWithinASecond(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes)
        let (client, stream) = try server.subscribe()
        try waitUntilWaiting(stream)
        client.close()
        #expect(server.terminations.next(timeout: .seconds(1)) == .clientGone)
        #expect(server.server.waitForOccupancy(timeout: .seconds(1)) { server.server.openStreamCount == 0 })
    }

    /// Direct writes only: "mid-chunk" is a direct write that the socket could not take whole.
    @Test func aClientThatClosesMidChunkEndsItsStreamWithinASecond() throws {
        let server = try StreamingServer(maxPendingBytes: 4 << 20)
        let (client, stream) = try server.subscribe(receiveBufferSize: 4096)
        try waitUntilWaiting(stream)
        #expect(stream.send(sseEvent(id: 1, data: String(repeating: "M", count: 256 << 10))))
        #expect(stream.state.withLock { $0.unfinishedChunk != nil })
        client.close()
        #expect(server.terminations.next(timeout: .seconds(1)) == .clientGone)
        #expect(server.server.waitForOccupancy(timeout: .seconds(1)) { server.server.openStreamCount == 0 })
    }

    @Test(arguments: StreamWrites.allCases)
    func aHundredStreamsOpenedAndClosedAtTheConnectionLimitEachFreeTheirSlotAtOnce(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, initialEvents: [sseEvent(id: 0, data: "hello")]) { $0.connectionLimit = 4 }
        for cycle in 0..<100 {
            let (client, _) = try server.subscribe()
            #expect(try client.nextEvent(timeout: .seconds(5))?.id == "0")
            client.close()
            guard server.server.waitForOccupancy(timeout: .seconds(1), until: { server.server.openStreamCount == 0 }) else {
                Issue.record("cycle \(cycle): the closed stream still holds its slot after 1 s")
                return
            }
        }
        #expect(try TestHTTPClient(port: server.port, timeout: .seconds(2)).send(path: "/plain").status == 200)
    }
}

/// Waits until libmicrohttpd has written everything it had for `stream` and suspended the
/// connection, i.e. until sends go straight to the socket.
func waitUntilWaiting(_ stream: EventStream) throws {
    guard waitUntil(timeout: .seconds(5), { stream.state.withLock { $0.isSuspended && $0.unfinishedChunk == nil } }) else {
        throw TestHTTPError(code: .timeout, message: "Timed out waiting until the stream waits for data")
    }
}
