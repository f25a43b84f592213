import Foundation
import ConcurrencyKit
import MicroHTTP
import Synchronization

/// Sends one buffer to many event streams on several threads at once: the calling thread and
/// the helper threads take blocks of streams until none is left, and ``send(_:to:)`` returns
/// when every block is done. Blocks are claimed, not assigned, so a thread the scheduler sets
/// aside (the machine's cores are shared with everything else) holds up at most one block.
///
/// Each send is a system call that also runs the receiving side of a loopback TCP connection,
/// so with thousands of subscribers one thread is the bottleneck of an event's delivery. Because
/// the call waits for every block, one buffer is fully handed out before the next begins: every
/// stream still gets the buffers in the order they were sent, whichever thread writes them.
final class FanOutPool: Sendable {
    /// Below this many streams, waking helpers costs more than it saves.
    static let minimumStreamsToShare = 256
    /// Streams per claimed block: large enough to make claiming cheap, small enough to balance.
    static let blockSize = 64

    /// The current send and the helpers' progress.
    private struct Shared {
        /// Counts sends; a helper works on each new one once.
        var generation: UInt64 = 0
        var bytes: [UInt8] = []
        var streams: [EventStream] = []
        /// Helpers that have not finished their share of the current send.
        var unfinishedShares = 0
        var stopped = false
        var runningHelpers = 0
    }

    private let helperCount: Int
    private let shared = Lock(Shared())
    /// The index of the first stream of the next unclaimed block of the current send.
    private let nextBlock = Atomic<Int>(0)

    /// - Parameter threads: how many threads share a send, the caller's included (at least 1).
    init(threads: Int) {
        helperCount = max(0, threads - 1)
    }

    /// The number of threads that share a large send, the caller's included.
    var threadCount: Int { helperCount + 1 }

    /// Starts the helper threads.
    func start() {
        shared.withLock { $0.runningHelpers = helperCount }
        for index in 0..<helperCount {
            let thread = Thread { [self] in runHelper() }
            thread.name = "remvvm-fanout-\(index + 1)"
            thread.start()
        }
    }

    /// Sends `bytes` to every stream in `streams` and returns when all sends are done.
    /// Call from one thread at a time.
    func send(_ bytes: [UInt8], to streams: [EventStream]) {
        let helpers = shared.withLock { $0.stopped ? 0 : helperCount }
        guard helpers > 0, streams.count >= Self.minimumStreamsToShare else {
            for stream in streams {
                stream.send(bytes)
            }
            return
        }
        shared.withLock { shared in
            shared.bytes = bytes
            shared.streams = streams
            nextBlock.store(0, ordering: .relaxed)
            shared.unfinishedShares = helpers
            shared.generation &+= 1
        }
        shared.notifyAll()
        sendClaimedBlocks(of: bytes, to: streams)
        shared.withLock(waitingUntil: { $0.unfinishedShares == 0 }) { shared in
            shared.bytes = []
            shared.streams = []
        }
    }

    /// Stops the helper threads and waits for them to exit.
    func stop() {
        shared.withLock { $0.stopped = true }
        shared.notifyAll()
        shared.withLock(waitingUntil: { $0.runningHelpers == 0 }) { _ in }
    }

    private func runHelper() {
        var seen: UInt64 = 0
        while true {
            let job: (bytes: [UInt8], streams: [EventStream])? = shared.withLock(
                waitingUntil: { $0.generation != seen || $0.stopped }
            ) { shared in
                guard !shared.stopped else { return nil }
                seen = shared.generation
                return (shared.bytes, shared.streams)
            }
            guard let job else { break }
            // Its own copy: every send retains and releases the buffer, and threads doing that
            // on one shared buffer would contend for its reference count.
            let ownBytes = job.bytes.withUnsafeBufferPointer { Array($0) }
            sendClaimedBlocks(of: ownBytes, to: job.streams)
            let lastShare = shared.withLock { shared in
                shared.unfinishedShares -= 1
                return shared.unfinishedShares == 0
            }
            if lastShare { shared.notifyAll() }
        }
        shared.withLock { $0.runningHelpers -= 1 }
        shared.notifyAll()
    }

    /// Claims blocks of the current send's streams and sends to them until none is left.
    private func sendClaimedBlocks(of bytes: [UInt8], to streams: [EventStream]) {
        while true {
            let lower = nextBlock.wrappingAdd(Self.blockSize, ordering: .relaxed).oldValue
            guard lower < streams.count else { return }
            for index in lower..<min(lower + Self.blockSize, streams.count) {
                streams[index].send(bytes)
            }
        }
    }
}
