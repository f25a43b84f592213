#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What became of one non-blocking write straight to a stream's socket.
enum DirectWriteOutcome {
    /// Everything went out.
    case written
    /// Nothing went out: the socket's send buffer is full.
    case wouldBlock
    /// Only the beginning went out; these bytes must follow before anything else. A slice of
    /// the written buffer, so going on with a large write never copies what is left.
    case partial(remainder: ArraySlice<UInt8>)
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
            return bytes.withUnsafeBytes { payload in
                Self.crlf.withUnsafeBytes { trailer in
                    var parts = [
                        iovec(iov_base: header.baseAddress, iov_len: headerLength),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: trailer.baseAddress), iov_len: trailer.count),
                    ]
                    let total = headerLength + payload.count + trailer.count
                    let sent = parts.withUnsafeMutableBufferPointer { vectors in
                        var message = msghdr()
                        message.msg_iov = vectors.baseAddress
                        message.msg_iovlen = vectors.count
                        return sendmsg(socket, &message, Self.flags)
                    }
                    return Self.outcome(sent: sent, total: total) {
                        // Rare (a full send buffer mid-chunk): only then is the chunk copied.
                        var framed = Array(UnsafeBufferPointer(start: header.baseAddress, count: headerLength))
                        framed.append(contentsOf: bytes)
                        framed.append(contentsOf: Self.crlf)
                        return framed[$0...]
                    }
                }
            }
        }
    }

    /// Makes every direct write leave at once: no corking, no Nagle delay.
    ///
    /// libmicrohttpd 0.9.75 already leaves a chunked response's socket so after a chunk
    /// (measured: `TCP_NODELAY` 1, `TCP_CORK` 0); setting it explicitly keeps direct writes
    /// prompt whatever it did before.
    func disableSendDelays() {
        var on: Int32 = 1
        var off: Int32 = 0
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &off, size)
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
    }

    /// Writes raw bytes (the rest of a chunk a direct write began) in one non-blocking `send`.
    func writeRaw(_ bytes: ArraySlice<UInt8>) -> DirectWriteOutcome {
        let sent = bytes.withUnsafeBytes { raw in
            send(socket, raw.baseAddress, raw.count, Self.flags)
        }
        return Self.outcome(sent: sent, total: bytes.count) { bytes.dropFirst($0) }
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    /// Never block the calling thread; a closed peer gives EPIPE, not SIGPIPE.
    private static let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)

    private static func outcome(
        sent: Int,
        total: Int,
        remainder: (Int) -> ArraySlice<UInt8>
    ) -> DirectWriteOutcome {
        if sent == total {
            return .written
        }
        if sent >= 0 {
            return sent == 0 ? .wouldBlock : .partial(remainder: remainder(sent))
        }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK || error == EINTR {
            return .wouldBlock
        }
        return .failed(error)
    }

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
