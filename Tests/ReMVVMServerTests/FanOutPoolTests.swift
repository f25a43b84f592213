import ConcurrencyKit
@testable import MicroHTTP
@testable import ReMVVMServer
import Testing

/// Sending one buffer to many streams on several threads.
@Suite struct FanOutPoolTests {
    @Test func everyStreamGetsEveryBufferInOrderWhenThreadsShareTheWork() throws {
        let workers = WorkerPool(named: "fanout-test", threads: 3)
        defer { try? workers.stop() }
        let pool = FanOutPool(pool: workers)
        #expect(pool.threadCount == 3)
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
        let workers = WorkerPool(named: "fanout-test", threads: 4)
        defer { try? workers.stop() }
        let pool = FanOutPool(pool: workers)
        let streams = (0..<(FanOutPool.minimumStreamsToShare - 1)).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([1, 2, 3], to: streams)
        pool.send([4], to: streams)
        for stream in streams {
            #expect(queuedBytes(of: stream) == [1, 2, 3, 4])
        }
    }

    @Test func aSendCompletesWhileEveryPoolThreadIsBusyElsewhere() {
        // The helpers queue behind a job that holds the pool's only thread until the send is
        // done: the caller must send every block itself rather than wait for them.
        let workers = WorkerPool(named: "fanout-test", threads: 1)
        let release = Lock(false)
        workers.run { _ = release.wait(timeout: .seconds(30)) { $0 } }
        let pool = FanOutPool(pool: workers, helpers: 3)
        let streams = (0..<1000).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([5, 6], to: streams)
        release.withLock { $0 = true }
        release.notifyAll()
        #expect(streams.allSatisfy { queuedBytes(of: $0) == [5, 6] })
        #expect((try? workers.stop(timeout: .seconds(30))) != nil)
    }

    @Test func oneThreadMeansNoHelpers() {
        let pool = FanOutPool(pool: WorkerPool(named: "fanout-test", threads: 1))
        #expect(pool.threadCount == 1)
        let streams = (0..<300).map { _ in EventStream(maxPendingBytes: 1024) }
        pool.send([7], to: streams)
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
