import ConcurrencyKit
import MicroHTTP
import Synchronization

/// Sends one buffer to many event streams on several threads at once: the calling thread and
/// helper jobs on a ``WorkerPool`` (shared by every hub, no thread of its own) take blocks of
/// streams until none is left, and ``send(_:to:)`` returns when every block is done. Blocks are
/// claimed, not assigned, so a thread the scheduler sets aside (the machine's cores are shared
/// with everything else) holds up at most one block, and a helper that starts late (its pool
/// threads busy with other stores' work) finds nothing left and returns: the caller never waits
/// for a helper to start, only for blocks under way, so it cannot wait on work queued behind it.
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

    private let pool: WorkerPool
    private let helperCount: Int

    /// Sends shared with `pool`'s threads: as many helpers as it has threads but one, the
    /// calling thread being one of them (`helpers` overrides that, for tests).
    init(pool: WorkerPool, helpers: Int? = nil) {
        self.pool = pool
        helperCount = max(0, helpers ?? pool.threadCount - 1)
    }

    /// The number of threads that share a large send, the caller's included.
    var threadCount: Int { helperCount + 1 }

    /// Sends `bytes` to every stream in `streams` and returns when all sends are done.
    func send(_ bytes: [UInt8], to streams: [EventStream]) {
        guard helperCount > 0, streams.count >= Self.minimumStreamsToShare else {
            for stream in streams {
                stream.send(bytes)
            }
            return
        }
        let delivery = Delivery(bytes: bytes, streams: streams)
        for _ in 0..<min(helperCount, delivery.blockCount - 1) {
            pool.run {
                // Its own copy: every send retains and releases the buffer, and threads doing
                // that on one shared buffer would contend for its reference count.
                let ownBytes = delivery.bytes.withUnsafeBufferPointer { Array($0) }
                delivery.sendClaimedBlocks(of: ownBytes)
            }
        }
        delivery.sendClaimedBlocks(of: bytes)
        delivery.waitForEveryBlock()
    }
}

/// One buffer on its way to many streams: the next block to claim and the blocks done.
private final class Delivery: Sendable {
    let bytes: [UInt8]
    let streams: [EventStream]
    let blockCount: Int
    private let nextBlock = Atomic<Int>(0)
    private let blocksDone = Lock(0)

    init(bytes: [UInt8], streams: [EventStream]) {
        self.bytes = bytes
        self.streams = streams
        blockCount = (streams.count + FanOutPool.blockSize - 1) / FanOutPool.blockSize
    }

    /// Claims blocks and sends `bytes` to their streams until none is left.
    func sendClaimedBlocks(of bytes: [UInt8]) {
        var done = 0
        while true {
            let block = nextBlock.wrappingAdd(1, ordering: .relaxed).oldValue
            guard block < blockCount else { break }
            let lower = block * FanOutPool.blockSize
            for index in lower..<min(lower + FanOutPool.blockSize, streams.count) {
                streams[index].send(bytes)
            }
            done += 1
        }
        guard done > 0 else { return }
        let all = blocksDone.withLock { count in
            count += done
            return count == blockCount
        }
        if all { blocksDone.notifyAll() }
    }

    /// Returns once every block is sent (each claimed block is being sent by a running thread).
    func waitForEveryBlock() {
        blocksDone.withLock(waitingUntil: { $0 == blockCount }) { _ in }
    }
}
