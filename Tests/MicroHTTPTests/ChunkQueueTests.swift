@testable import MicroHTTP
import Testing

/// ``ChunkQueue``: the per-stream FIFO of shared chunks that direct writes and libmicrohttpd's
/// content reader drain.
@Suite struct ChunkQueueTests {
    /// Drains up to `capacity` bytes into a fresh buffer and returns them.
    private func drain(_ queue: inout ChunkQueue, capacity: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = buffer.withUnsafeMutableBytes { queue.dequeue(into: $0) }
        return Array(buffer.prefix(count))
    }

    @Test func bytesLeaveInOrderAcrossChunkBoundaries() {
        var queue = ChunkQueue()
        queue.append(Array("abc".utf8))
        queue.append(Array("defg".utf8))
        queue.append(Array("h".utf8))
        #expect(queue.byteCount == 8)
        #expect(drain(&queue, capacity: 2) == Array("ab".utf8))
        #expect(drain(&queue, capacity: 4) == Array("cdef".utf8))
        #expect(queue.byteCount == 2)
        #expect(drain(&queue, capacity: 100) == Array("gh".utf8))
        #expect(queue.isEmpty)
        #expect(queue.chunkCount == 0)
        #expect(drain(&queue, capacity: 100).isEmpty)
    }

    @Test func emptyChunksAreNotQueued() {
        var queue = ChunkQueue()
        queue.append([])
        #expect(queue.isEmpty)
        #expect(queue.chunkCount == 0)
    }

    @Test func anEmptyBufferTakesNothing() {
        var queue = ChunkQueue()
        queue.append([1, 2, 3])
        #expect(drain(&queue, capacity: 0).isEmpty)
        #expect(queue.byteCount == 3)
    }

    @Test func aChunkIsReleasedAsSoonAsItIsWritten() {
        var queue = ChunkQueue()
        queue.append([1, 2])
        queue.append([3, 4])
        #expect(queue.chunkCount == 2)
        _ = drain(&queue, capacity: 3)
        #expect(queue.chunkCount == 1, "the first chunk is gone, the second is half written")
        #expect(queue.byteCount == 1)
        #expect(drain(&queue, capacity: 3) == [4])
    }

    @Test func appendingKeepsTheCallersStorageInsteadOfCopyingIt() {
        let chunk = [UInt8](repeating: 7, count: 1_000)
        var queue = ChunkQueue()
        queue.append(chunk)
        var buffer = [UInt8](repeating: 0, count: 1)
        _ = buffer.withUnsafeMutableBytes { queue.dequeue(into: $0) }
        // A copy-on-write array shares its storage until written: the queue holds the same
        // storage as the caller (one event sent to thousands of streams is stored once).
        let shared = chunk.withUnsafeBufferPointer { original in
            queue.withFirstChunk { $0.withUnsafeBufferPointer { $0.baseAddress == original.baseAddress } }
        }
        #expect(shared == true)
    }

    @Test func removeAllEmptiesTheQueue() {
        var queue = ChunkQueue()
        queue.append([1, 2, 3])
        _ = drain(&queue, capacity: 1)
        queue.removeAll()
        #expect(queue.isEmpty)
        queue.append([9])
        #expect(drain(&queue, capacity: 10) == [9], "no offset is left over from before")
    }

    @Test func aLongInterleavedRunMatchesAReferenceFIFO() {
        var queue = ChunkQueue()
        var reference: [UInt8] = []
        var received: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        var next: UInt8 = 0
        for _ in 0..<2_000 {
            if Bool.random(using: &generator) {
                let chunk = (0..<Int.random(in: 0...50, using: &generator)).map { _ in
                    next &+= 1
                    return next
                }
                queue.append(chunk)
                reference += chunk
            } else {
                received += drain(&queue, capacity: Int.random(in: 0...80, using: &generator))
            }
            #expect(queue.byteCount == reference.count - received.count)
        }
        received += drain(&queue, capacity: reference.count)
        #expect(received == reference)
    }
}
