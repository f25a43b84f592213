import HTTPTestSupport
@testable import MicroHTTP
import Testing

/// `EventStream.whenPending(atMost:_:)`: a producer with more to send than the backlog holds
/// learns when the client has read enough (or the stream ended), without polling.
@Suite struct StreamRoomTests {
    @Test func theWaiterRunsAtOnceWhenTheBacklogIsSmallEnoughAlready() {
        let stream = EventStream(maxPendingBytes: 100)
        stream.send([1, 2, 3])
        let calls = Mailbox<Int>()
        stream.whenPending(atMost: 3) { calls.post(3) }
        stream.whenPending(atMost: 2) { calls.post(2) }
        #expect(calls.snapshot == [3], "3 pending: at most 3 holds, at most 2 does not")
    }

    @Test func theWaiterRunsOnceWhenTheStreamEnds() {
        let stream = EventStream(maxPendingBytes: 100)
        stream.send([1, 2, 3])
        let calls = Mailbox<String>()
        stream.whenPending(atMost: 0) { calls.post("replaced") }
        stream.whenPending(atMost: 0) { calls.post("waiter") }
        #expect(calls.snapshot.isEmpty)
        stream.close()
        stream.close()
        #expect(calls.snapshot == ["waiter"], "once, and only the newest waiter")
        stream.whenPending(atMost: 0) { calls.post("after the end") }
        #expect(calls.snapshot == ["waiter", "after the end"], "an ended stream has room for nothing more to wait for")
    }

    @Test func anOverflowWakesTheWaiter() {
        let stream = EventStream(maxPendingBytes: 4)
        stream.send([1, 2, 3])
        let calls = Mailbox<Void>()
        stream.whenPending(atMost: 1) { calls.post(()) }
        #expect(!stream.send([4, 5]))
        #expect(calls.snapshot.count == 1)
    }

    @Test(arguments: StreamWrites.allCases)
    func theWaiterRunsOnceTheClientHasReadTheBacklog(writes: StreamWrites) throws {
        let server = try StreamingServer(writes: writes, maxPendingBytes: 64 << 20)
        let (client, stream) = try server.subscribe(receiveBufferSize: 4096)
        try waitUntilWaiting(stream)
        // Far more than the socket buffers hold: most of it waits while the client reads nothing.
        #expect(stream.send(sseEvent(id: 1, data: String(repeating: "R", count: 2 << 20))))
        #expect(stream.pendingBytes > 0)
        let drained = Mailbox<Void>()
        stream.whenPending(atMost: 0) { drained.post(()) }
        #expect(drained.snapshot.isEmpty, "the client has not read yet")
        #expect(try client.nextEvent(timeout: .seconds(10))?.data.count == 2 << 20)
        #expect(drained.next(timeout: .seconds(5)) != nil, "called once the backlog was taken")
        #expect(!stream.isClosed)
    }
}
