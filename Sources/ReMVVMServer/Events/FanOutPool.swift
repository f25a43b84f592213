import Foundation
import MicroHTTP

/// Sends one buffer to many event streams on several threads at once: the calling thread takes
/// one share of the streams, each helper thread another, and ``send(_:to:)`` returns when every
/// share is done.
///
/// Each send is a system call that also runs the receiving side of a loopback TCP connection,
/// so with thousands of subscribers one thread is the bottleneck of an event's delivery. Because
/// the call waits for every share, one buffer is fully handed out before the next begins: every
/// stream still gets the buffers in the order they were sent, whichever thread writes them.
final class FanOutPool: @unchecked Sendable {
    // @unchecked: every field below `condition` is only touched with `condition` locked.

    /// Below this many streams, waking helpers costs more than it saves.
    static let minimumStreamsToShare = 256

    private let helperCount: Int
    private let condition = NSCondition()
    private var generation: UInt64 = 0
    private var bytes: [UInt8] = []
    private var streams: [EventStream] = []
    private var unfinishedShares = 0
    private var stopped = false
    private var runningHelpers = 0

    /// - Parameter threads: how many threads share a send, the caller's included (at least 1).
    init(threads: Int) {
        helperCount = max(0, threads - 1)
    }

    /// The number of threads that share a large send, the caller's included.
    var threadCount: Int { helperCount + 1 }

    /// Starts the helper threads.
    func start() {
        condition.withLock { runningHelpers = helperCount }
        for index in 0..<helperCount {
            let thread = Thread { [self] in runHelper(share: index + 1) }
            thread.name = "remvvm-fanout-\(index + 1)"
            thread.start()
        }
    }

    /// Sends `bytes` to every stream in `streams` and returns when all sends are done.
    /// Call from one thread at a time.
    func send(_ bytes: [UInt8], to streams: [EventStream]) {
        let helpers = condition.withLock { stopped ? 0 : helperCount }
        guard helpers > 0, streams.count >= Self.minimumStreamsToShare else {
            for stream in streams {
                stream.send(bytes)
            }
            return
        }
        condition.withLock {
            self.bytes = bytes
            self.streams = streams
            unfinishedShares = helpers
            generation &+= 1
            condition.broadcast()
        }
        Self.send(bytes, to: streams, share: 0, of: helpers + 1)
        condition.withLock {
            while unfinishedShares > 0 {
                condition.wait()
            }
            self.bytes = []
            self.streams = []
        }
    }

    /// Stops the helper threads and waits for them to exit.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while runningHelpers > 0 {
                condition.wait()
            }
        }
    }

    private func runHelper(share: Int) {
        var seen: UInt64 = 0
        while true {
            let job: (bytes: [UInt8], streams: [EventStream])? = condition.withLock {
                while generation == seen && !stopped {
                    condition.wait()
                }
                guard !stopped else { return nil }
                seen = generation
                return (bytes, streams)
            }
            guard let job else { break }
            Self.send(job.bytes, to: job.streams, share: share, of: helperCount + 1)
            condition.withLock {
                unfinishedShares -= 1
                if unfinishedShares == 0 { condition.broadcast() }
            }
        }
        condition.withLock {
            runningHelpers -= 1
            condition.broadcast()
        }
    }

    /// Sends to the streams of share `share` of `count` (contiguous ranges of equal size).
    ///
    /// Each share sends its own copy of the bytes: every send retains and releases the buffer,
    /// and threads doing that on one shared buffer would contend for its reference count.
    private static func send(_ bytes: [UInt8], to streams: [EventStream], share: Int, of count: Int) {
        let ownBytes = share == 0 ? bytes : bytes.withUnsafeBufferPointer { Array($0) }
        let lower = streams.count * share / count
        let upper = streams.count * (share + 1) / count
        for index in lower..<upper {
            streams[index].send(ownBytes)
        }
    }
}
