/// Bytes waiting to be written to one stream: a FIFO of shared, immutable chunks.
///
/// Appending keeps a reference to the caller's array (copy-on-write, never copied), so one
/// event sent to thousands of streams is stored once. Draining copies as many bytes as fit
/// into the connection's write buffer, across chunk boundaries.
struct ChunkQueue {
    private var chunks: [[UInt8]] = []
    /// Index of the first chunk not fully written.
    private var head = 0
    /// Bytes of `chunks[head]` already written.
    private var offset = 0
    /// Bytes queued and not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        chunks.append(chunk)
        byteCount += chunk.count
    }

    mutating func removeAll() {
        chunks = []
        head = 0
        offset = 0
        byteCount = 0
    }

    /// Moves up to `buffer.count` bytes into `buffer`; returns how many.
    mutating func dequeue(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let destination = buffer.baseAddress else { return 0 }
        var written = 0
        while written < buffer.count, head < chunks.count {
            let take = chunks[head].withUnsafeBytes { source -> Int in
                let take = min(source.count - offset, buffer.count - written)
                if let base = source.baseAddress {
                    (destination + written).copyMemory(from: base + offset, byteCount: take)
                }
                return take
            }
            written += take
            offset += take
            if offset == chunks[head].count {
                chunks[head] = []  // release the chunk as soon as it is written
                head += 1
                offset = 0
            }
        }
        byteCount -= written
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: chunks.count <= 64)
            head = 0
        } else if head >= 64, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        return written
    }
}
