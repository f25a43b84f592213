import ConcurrencyKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The part of an HTTP/1.1 chunk that a direct write has not sent yet: what is left of the size
/// line, of the payload and of the closing CRLF.
///
/// The payload is a slice of the array that was sent, so a chunk that one broadcast hands to
/// thousands of streams is stored once however many of them a full socket leaves unfinished:
/// only the size line (at most 18 bytes) is copied.
struct UnfinishedChunk: Sendable {
    var sizeLine: ArraySlice<UInt8>
    var payload: ArraySlice<UInt8>
    /// Bytes of the closing CRLF still to send (0...2).
    var trailer: Int

    /// Bytes still to send.
    var count: Int { sizeLine.count + payload.count + trailer }

    /// Drops the first `sent` bytes (sent successfully).
    mutating func advance(by sent: Int) {
        var sent = sent
        let fromSizeLine = min(sent, sizeLine.count)
        sizeLine = sizeLine.dropFirst(fromSizeLine)
        sent -= fromSizeLine
        let fromPayload = min(sent, payload.count)
        payload = payload.dropFirst(fromPayload)
        sent -= fromPayload
        trailer -= min(sent, trailer)
    }
}

/// What became of one non-blocking write straight to a stream's socket.
enum DirectWriteOutcome {
    /// Everything went out.
    case written
    /// Nothing went out: the socket's send buffer is full.
    case wouldBlock
    /// Only the beginning went out; the rest must follow before anything else.
    case partial(remainder: UnfinishedChunk)
    /// The socket failed (the client is gone); carries `errno`.
    case failed(Int32)
}

extension ConnectionHandle {
    /// Writes `bytes` as one HTTP/1.1 chunk (`<size in hex>\r\n<bytes>\r\n`) in a single
    /// non-blocking `sendmsg`, without copying them.
    ///
    /// Only valid while libmicrohttpd has the connection suspended between chunks: it then
    /// has nothing buffered for it and does not touch the socket, so these bytes continue its
    /// chunked body exactly where it left off.
    func writeChunk(_ bytes: [UInt8]) -> DirectWriteOutcome {
        precondition(!bytes.isEmpty, "an empty chunk would end the body")
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { header in
            let headerLength = Self.encodeChunkHeader(bytes.count, into: header)
            let sizeLine = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(header)[..<headerLength])
            let sent = bytes.withUnsafeBytes { payload in
                send(sizeLine: sizeLine, payload: payload, trailer: 2)
            }
            return Self.outcome(sent: sent, total: headerLength + bytes.count + 2) {
                // Rare (a full send buffer mid-chunk): only the size line is copied.
                UnfinishedChunk(sizeLine: ArraySlice(sizeLine), payload: bytes[...], trailer: 2)
            }
        }
    }

    /// Writes what is left of a chunk in one non-blocking `sendmsg`.
    func writeRemainder(_ chunk: UnfinishedChunk) -> DirectWriteOutcome {
        let sent = chunk.sizeLine.withUnsafeBytes { sizeLine in
            chunk.payload.withUnsafeBytes { payload in
                send(sizeLine: sizeLine, payload: payload, trailer: chunk.trailer)
            }
        }
        return Self.outcome(sent: sent, total: chunk.count) { chunk }
    }

    /// One `sendmsg` of a size line, a payload and the last `trailer` bytes of a CRLF.
    private func send(sizeLine: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, trailer: Int) -> Result<Int, SystemCallError> {
        Self.crlf.withUnsafeBytes { crlf in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: 3) { vectors in
                vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: sizeLine.baseAddress), iov_len: sizeLine.count)
                vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count)
                vectors[2] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: crlf.baseAddress.map { $0 + (2 - trailer) }),
                    iov_len: trailer
                )
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = vectors.count
                return Result { () throws(SystemCallError) in try Posix.send(socket, &message, flags: Self.flags) }
            }
        }
    }

    /// Turns a `sendmsg` result into an outcome; `unsent` gives the chunk before the write, to
    /// be advanced past what went out.
    private static func outcome(
        sent result: Result<Int, SystemCallError>, total: Int, unsent: () -> UnfinishedChunk
    ) -> DirectWriteOutcome {
        switch result {
        case .success(let sent) where sent == total:
            return .written
        case .success(let sent) where sent > 0:
            var rest = unsent()
            rest.advance(by: sent)
            return .partial(remainder: rest)
        case .success:
            return .wouldBlock
        case .failure(let error) where error.wouldBlock:
            return .wouldBlock
        case .failure(let error):
            return .failed(error.code)
        }
    }

    /// Makes every direct write leave at once: no corking, no Nagle delay.
    ///
    /// libmicrohttpd 0.9.75 already leaves a chunked response's socket so after a chunk
    /// (measured: `TCP_NODELAY` 1, `TCP_CORK` 0); setting it explicitly keeps direct writes
    /// prompt whatever it did before.
    func disableSendDelays() {
        do {
            try Posix.setOption(socket, level: Int32(IPPROTO_TCP), TCP_CORK, to: Int32(0), label: "TCP_CORK")
            try Posix.setOption(socket, level: Int32(IPPROTO_TCP), TCP_NODELAY, to: Int32(1), label: "TCP_NODELAY")
        } catch {
            // Only a socket already reset refuses these; the write that follows finds that out.
        }
    }

    /// Caps the kernel's send buffer of this socket at `bytes` (Linux doubles the value for its
    /// bookkeeping and stops growing the buffer on its own). What a client that stops reading
    /// can hold in the kernel is then bounded, as the stream's backlog bounds what it holds in
    /// ours. Ignored if the system refuses.
    func limitSendBuffer(to bytes: Int) {
        do {
            try Posix.setOption(socket, level: SOL_SOCKET, SO_SNDBUF, to: Int32(clamping: bytes), label: "SO_SNDBUF")
        } catch {
            // The stream is then bounded by its own backlog alone, as with a 0 setting.
        }
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    /// Never block the calling thread; a closed peer gives EPIPE, not SIGPIPE.
    private static let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)

    /// Writes `size` in lower-case hex plus CRLF; returns the length.
    private static func encodeChunkHeader(_ size: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var length = 0
        var shift = (Int.bitWidth - size.leadingZeroBitCount + 3) / 4 * 4
        repeat {
            shift = max(0, shift - 4)
            buffer[length] = hexDigits[(size >> shift) & 0xF]
            length += 1
        } while shift > 0
        buffer[length] = 0x0D
        buffer[length + 1] = 0x0A
        return length + 2
    }
}
