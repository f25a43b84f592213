@testable import MicroHTTP
@testable import ReMVVMServer
import Testing

/// Sending one buffer to many streams on several threads.
@Suite struct FanOutPoolTests {
    @Test func everyStreamGetsEveryBufferInOrderWhenThreadsShareTheWork() {
        let pool = FanOutPool(threads: 3)
        pool.start()
        defer { pool.stop() }
        let streams = (0..<1000).map { _ in EventStream(maxPendingBytes: 1 << 20) }
        let buffers = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: 5 + index) }
        for buffer in buffers {
            pool.send(buffer, to: streams)
        }
        let expected = buffers.flatMap { $0 }
        for stream in streams {
            #expect(queuedBytes(of: stream) == expected)
        }
    }

    @Test func fewStreamsAreServedByTheCallingThreadAlone() {
        let pool = FanOutPool(threads: 4)
        pool.start()
        defer { pool.stop() }
        let streams = (0..<(FanOutPool.minimumStreamsToShare - 1)).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([1, 2, 3], to: streams)
        pool.send([4], to: streams)
        for stream in streams {
            #expect(queuedBytes(of: stream) == [1, 2, 3, 4])
        }
    }

    @Test func afterStopTheCallerSendsAlone() {
        let pool = FanOutPool(threads: 2)
        pool.start()
        pool.stop()
        let streams = (0..<500).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([9, 9], to: streams)
        for stream in streams {
            #expect(queuedBytes(of: stream) == [9, 9])
        }
    }

    @Test func oneThreadMeansNoHelpers() {
        let pool = FanOutPool(threads: 1)
        #expect(pool.threadCount == 1)
        pool.start()
        let streams = (0..<300).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([7], to: streams)
        pool.stop()
        #expect(streams.allSatisfy { queuedBytes(of: $0) == [7] })
    }
}

/// What a stream that was never attached to a connection holds, in order.
private func queuedBytes(of stream: EventStream) -> [UInt8] {
    stream.state.withLock { state in
        var bytes = [UInt8](repeating: 0, count: state.backlog.byteCount)
        let count = bytes.withUnsafeMutableBytes { state.backlog.dequeue(into: $0) }
        return Array(bytes[..<count])
    }
}
