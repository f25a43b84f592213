import HTTPTestSupport
import MicroHTTP
import Testing

/// The stream's own rules, before any connection is involved.
@Suite struct EventStreamUnitTests {
    @Test func sendQueuesBytesUntilAttached() {
        let stream = EventStream(maxPendingBytes: 100)
        #expect(stream.send(Array("abc".utf8)))
        #expect(stream.send([]))
        #expect(stream.pendingBytes == 3)
        #expect(!stream.isClosed)
    }

    @Test func sendBeyondTheBacklogLimitOverflowsOnceAndDropsTheBacklog() {
        let stream = EventStream(maxPendingBytes: 10)
        let reasons = Mailbox<EventStream.Termination>()
        stream.onTermination { reasons.post($0) }
        #expect(stream.send(Array(repeating: 1, count: 6)))
        #expect(stream.send(Array(repeating: 1, count: 4)))
        #expect(!stream.send([1]))
        #expect(stream.isClosed)
        #expect(stream.pendingBytes == 0)
        #expect(!stream.send([1]))
        #expect(reasons.next(1, timeout: .zero) == [.overflow])
        #expect(reasons.snapshot.isEmpty)
    }

    @Test func closeRunsEveryHandlerExactlyOnce() {
        let stream = EventStream(maxPendingBytes: 10)
        let reasons = Mailbox<String>()
        stream.onTermination { reasons.post("a \($0)") }
        stream.onTermination { reasons.post("b \($0)") }
        stream.close()
        stream.close()
        #expect(reasons.snapshot == ["a closed", "b closed"])
    }

    @Test func closeKeepsWhatIsQueuedForDelivery() {
        let stream = EventStream(maxPendingBytes: 10)
        stream.send([1, 2, 3])
        stream.close()
        #expect(stream.pendingBytes == 3)
        #expect(!stream.send([4]))
    }

    @Test func aSendLargerThanTheLimitIsAcceptedWhenNothingIsPending() {
        let stream = EventStream(maxPendingBytes: 4)
        #expect(stream.send(Array(repeating: 7, count: 50)))
        #expect(stream.pendingBytes == 50)
        #expect(!stream.isClosed)
        // Now something is pending: the next send would pass the limit.
        #expect(!stream.send([1]))
        #expect(stream.isClosed)
    }

    @Test func handlerRegisteredAfterTheEndRunsImmediately() {
        let stream = EventStream(maxPendingBytes: 1)
        stream.send([1])
        stream.send([2])
        let reasons = Mailbox<EventStream.Termination>()
        stream.onTermination { reasons.post($0) }
        #expect(reasons.snapshot == [.overflow])
    }

    @Test func handlerMayUseTheStream() {
        let stream = EventStream(maxPendingBytes: 10)
        let observed = Mailbox<Bool>()
        stream.onTermination { _ in observed.post(stream.isClosed && !stream.send([1])) }
        stream.close()
        #expect(observed.snapshot == [true])
    }

    @Test func concurrentSendsAndCloseEndTheStreamOnce() {
        let stream = EventStream(maxPendingBytes: 1 << 30)
        let reasons = Mailbox<EventStream.Termination>()
        stream.onTermination { reasons.post($0) }
        let errors = runOnThreads(8) { index in
            for _ in 0..<2000 {
                stream.send([UInt8(index)])
            }
            if index == 3 {
                stream.close()
            }
        }
        #expect(errors.isEmpty)
        #expect(reasons.snapshot == [.closed])
        #expect(stream.pendingBytes <= 8 * 2000)
    }
}
