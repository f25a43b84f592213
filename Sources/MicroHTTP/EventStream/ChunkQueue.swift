import DequeModule

/// Bytes waiting to be written to one stream: a FIFO of shared, immutable chunks.
///
/// Appending keeps a reference to the caller's array (copy-on-write, never copied), so one
/// event sent to thousands of streams is stored once. Draining copies as many bytes as fit
/// into the connection's write buffer, across chunk boundaries, and releases each chunk as soon
/// as it is written.
struct ChunkQueue {
    /// Above this many chunks, an emptied queue gives its storage back instead of keeping it for
    /// the next burst (thousands of streams each keeping a burst's peak would add up).
    static let retainedCapacity = 64

    private var chunks: Deque<[UInt8]> = []
    /// Bytes of `chunks.first` already written.
    private var offset = 0
    /// Chunks appended since the queue was last empty.
    private var appendedSinceEmpty = 0
    /// Bytes queued and not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    /// The number of chunks not fully written.
    var chunkCount: Int { chunks.count }

    /// Runs `body` on the chunk written next, if any (for tests of storage sharing).
    func withFirstChunk<Result>(_ body: ([UInt8]) -> Result) -> Result? {
        chunks.first.map(body)
    }

    mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        chunks.append(chunk)
        appendedSinceEmpty += 1
        byteCount += chunk.count
    }

    mutating func removeAll() {
        self = ChunkQueue()
    }

    /// Moves up to `buffer.count` bytes into `buffer`; returns how many.
    mutating func dequeue(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let destination = buffer.baseAddress else { return 0 }
        var written = 0
        while written < buffer.count, let first = chunks.first {
            let take = first.withUnsafeBytes { source -> Int in
                let take = min(source.count - offset, buffer.count - written)
                if let base = source.baseAddress {
                    (destination + written).copyMemory(from: base + offset, byteCount: take)
                }
                return take
            }
            written += take
            offset += take
            if offset == first.count {
                chunks.removeFirst()
                offset = 0
            }
        }
        byteCount -= written
        if chunks.isEmpty {
            if appendedSinceEmpty > Self.retainedCapacity {
                chunks = []
            }
            appendedSinceEmpty = 0
        }
        return written
    }
}
