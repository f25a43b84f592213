#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A blocking TCP connection with a read buffer; every read waits with poll() up to a deadline.
final class TestSocket {
    private(set) var descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Whether the peer closed its side (reads hit end of file).
    private(set) var reachedEnd = false

    /// Connects to `host`:`port`; `receiveBufferSize` sets `SO_RCVBUF` before connecting.
    init(host: String, port: Int, receiveBufferSize: Int? = nil) throws(TestHTTPError) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let literal = host == "localhost" ? "127.0.0.1" : host
        let family: Int32
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
        } else {
            throw TestHTTPError(code: .connectFailed, message: "Not an IP address: \(host)")
        }
        descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw TestHTTPError(code: .connectFailed, message: "socket(): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBufferSize.map(Int32.init(clamping:)) {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let result: Int32 = family == AF_INET
            ? withUnsafePointer(to: &v4) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            : withUnsafePointer(to: &v6) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            _ = closeDescriptor(descriptor)
            descriptor = -1
            throw TestHTTPError(code: .connectFailed, message: "connect to \(host):\(port): \(reason)")
        }
    }

    deinit {
        close()
    }

    var isOpen: Bool { descriptor >= 0 }

    /// Bytes received and not consumed yet.
    var buffered: Int { buffer.count - start }

    func close() {
        if descriptor >= 0 {
            _ = closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    /// Sends all of `bytes` (no SIGPIPE if the server already closed).
    func write(_ bytes: [UInt8]) throws(TestHTTPError) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress.map { $0 + sent }, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                throw TestHTTPError(code: .writeFailed, message: "send(): \(String(cString: strerror(errno)))")
            }
            sent += result
        }
    }

    /// Reads whatever arrives next into the buffer; returns `false` at end of file.
    @discardableResult
    func fill(deadline: ContinuousClock.Instant) throws(TestHTTPError) -> Bool {
        guard descriptor >= 0 else { throw TestHTTPError(code: .connectionClosed, message: "Socket is closed") }
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                throw TestHTTPError(code: .timeout, message: "Nothing received before the deadline")
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000
                + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count < 0, errno == ECONNRESET {
                reachedEnd = true
                return false
            }
            guard count >= 0 else {
                throw TestHTTPError(code: .connectionClosed, message: "recv(): \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                reachedEnd = true
                return false
            }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    /// The next line without its CRLF (or LF); `nil` at end of file before any byte of it.
    func readLine(deadline: ContinuousClock.Instant) throws(TestHTTPError) -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") {
                    end -= 1
                }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            guard try fill(deadline: deadline) else {
                if start == buffer.count { return nil }
                throw TestHTTPError(code: .connectionClosed, message: "Connection closed mid-line")
            }
        }
    }

    /// Exactly `count` bytes.
    func read(count: Int, deadline: ContinuousClock.Instant) throws(TestHTTPError) -> [UInt8] {
        while buffer.count - start < count {
            guard try fill(deadline: deadline) else {
                throw TestHTTPError(code: .connectionClosed, message: "Connection closed after \(buffer.count - start) of \(count) bytes")
            }
        }
        defer { start += count }
        return Array(buffer[start..<start + count])
    }

    /// Everything until the peer closes.
    func readToEnd(deadline: ContinuousClock.Instant) throws(TestHTTPError) -> [UInt8] {
        while try fill(deadline: deadline) {}
        defer { start = buffer.count }
        return Array(buffer[start...])
    }
}

/// `close(2)`, reachable from a type with its own `close()`.
func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
