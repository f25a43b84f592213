import ConcurrencyKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The server's bound, listening TCP socket, created here (not by libmicrohttpd) so a failure
/// to bind is reported with its real cause.
struct ListenSocket: Sendable {
    let descriptor: Int32
    /// The port actually bound (differs from the requested one when that was 0).
    let port: Int
    let isIPv6: Bool

    /// Binds `host`:`port` and starts listening (non-blocking, close-on-exec, `SO_REUSEADDR`).
    static func open(host: String, port: Int) throws(HTTPServerError) -> ListenSocket {
        guard HTTPServerConfiguration.Allowed.port.contains(port) else {
            throw HTTPServerError(code: .invalidConfiguration, message: "Port \(port) is outside \(HTTPServerConfiguration.Allowed.port)")
        }
        guard var address = SocketAddress(host: host, port: UInt16(port)) else {
            throw HTTPServerError(
                code: .invalidHost,
                message: "Host '\(host)' is not an IPv4 or IPv6 address or 'localhost'"
            )
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let descriptor: Int32
        do {
            descriptor = try Posix.openSocket(family: address.family, type: type)
        } catch {
            throw failure("create a socket for", host, port, error)
        }
        do {
            try Posix.setOption(descriptor, level: SOL_SOCKET, SO_REUSEADDR, to: Int32(1), label: "SO_REUSEADDR")
            try address.withSockaddr { address, length throws(SystemCallError) in
                try Posix.bindSocket(descriptor, address, length)
            }
            try Posix.startListening(descriptor, backlog: SOMAXCONN)
            try address.readBound(from: descriptor)
        } catch {
            ListenSocket.close(descriptor)
            throw failure("listen on", host, port, error)
        }
        return ListenSocket(descriptor: descriptor, port: Int(address.port), isIPv6: address.family == AF_INET6)
    }

    /// Closes the socket (only if libmicrohttpd never took it over).
    func close() {
        Self.close(descriptor)
    }

    private static func close(_ descriptor: Int32) {
        do {
            try Posix.closeDescriptor(descriptor)
        } catch {
            // EBADF would be a bug (closed twice); EIO cannot happen for a socket.
            assertionFailure("\(error)")
        }
    }

    private static func failure(_ action: String, _ host: String, _ port: Int, _ error: SystemCallError) -> HTTPServerError {
        let kind: HTTPServerError.Code = switch error.code {
        case EADDRINUSE: .addressInUse
        case EACCES, EPERM: .permissionDenied
        case EADDRNOTAVAIL: .invalidHost
        default: .socketFailed
        }
        let reason = String(cString: strerror(error.code))
        return HTTPServerError(code: kind, message: "Cannot \(action) \(HTTPServerConfiguration.authority(host: host, port: port)): \(reason)")
    }
}

/// An IPv4 or IPv6 socket address parsed from a literal host.
struct SocketAddress {
    private var storage = sockaddr_storage()
    let family: Int32

    init?(host: String, port: UInt16) {
        var literal = host == "localhost" ? "127.0.0.1" : host
        // Brackets only around an IPv6 literal, as in a URL.
        let isBracketed = literal.hasPrefix("[") && literal.hasSuffix("]")
        if isBracketed {
            literal = String(literal.dropFirst().dropLast())
        }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if !isBracketed, inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            family = AF_INET
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            family = AF_INET6
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
        } else {
            return nil
        }
    }

    var port: UInt16 {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET
                ? UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
        }
    }

    func withSockaddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let length = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
        return try withUnsafeBytes(of: storage) { raw throws(Failure) in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(length))  // non-empty struct: base address exists
        }
    }

    /// Replaces the address with the one the socket is bound to (to learn an ephemeral port).
    mutating func readBound(from descriptor: Int32) throws(SystemCallError) {
        try withUnsafeMutableBytes(of: &storage) { raw throws(SystemCallError) in
            guard let base = raw.baseAddress else { return }
            try Posix.localAddress(
                of: descriptor, into: base.assumingMemoryBound(to: sockaddr.self), capacity: socklen_t(raw.count)
            )
        }
    }
}
