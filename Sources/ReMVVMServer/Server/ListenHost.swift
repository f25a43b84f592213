#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a listen address says about who can connect.
enum ListenHost {
    /// Whether `host` (as ``MicroHTTP/HTTPServerConfiguration/host`` takes it: an IPv4 or IPv6
    /// literal, brackets optional, or `localhost`) is reachable only from this machine:
    /// `127.0.0.0/8`, `::1`, or `::ffff:127.x.x.x`. Anything else — `0.0.0.0`, `::`, another
    /// interface's address, a text that is not an address — counts as reachable.
    static func isLoopback(_ host: String) -> Bool {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.lowercased() == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return bytes == loopback || (bytes.prefix(12).elementsEqual(mappedPrefix) && bytes[12] == 127)
    }
}
