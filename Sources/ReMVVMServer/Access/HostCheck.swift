import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

/// Which `Host` names a server without access tokens answers (``ServiceConfiguration/allowedHosts``).
///
/// Without tokens, anything that reaches the port may read and dispatch. A browser keeps a
/// server on `127.0.0.1` (or published by a container on the machine) out of other sites' reach
/// by the same-origin rule, but a page whose DNS name its owner rebinds to `127.0.0.1` (DNS
/// rebinding) is same-origin with the server under that name: its requests carry that name in
/// `Host`, which is how they are told apart and answered `421 Misdirected Request`. With tokens
/// the check is off: such a page has no token.
enum HostCheck: Sendable, Equatable {
    /// Every name.
    case any
    /// The names nobody can point at this server's address from outside: address literals (an
    /// attacker's page cannot make a browser send `Host: 127.0.0.1` to another address, nor
    /// a name of its own with an address), `localhost` and names under `.localhost` (RFC 6761).
    case addressesAndLocalhost
    /// These names, normalized (``normalized(_:)``), besides those of ``addressesAndLocalhost``
    /// (which stay safe: health checks and probes by address keep working when a proxy's name is
    /// added).
    case names(Set<String>)

    /// The check `allowedHosts` asks for: nil, the automatic choice, is
    /// ``addressesAndLocalhost``; `*` is any.
    init(allowedHosts: [String]?) {
        guard let allowedHosts else {
            self = .addressesAndLocalhost
            return
        }
        self = allowedHosts.contains("*") ? .any : .names(Set(allowedHosts.map { Self.normalized($0[...]) }))
    }

    /// Whether a request with this `Host` field is answered. A request without one (HTTP/1.0)
    /// is: browsers always send it.
    func accepts(host field: String?) -> Bool {
        guard let field else { return true }
        let name = Self.normalized(Self.name(ofHostField: field))
        switch self {
        case .any:
            return true
        case .addressesAndLocalhost:
            return Self.isAddressOrLocalhost(name)
        case .names(let names):
            return names.contains(name) || Self.isAddressOrLocalhost(name)
        }
    }

    /// The HTTP layer's parser of listen addresses: IPv4, IPv6 in brackets (a name from `Host`
    /// never holds a bare IPv6 literal: its first colon ends it), and localhost; or a name under
    /// `.localhost`.
    private static func isAddressOrLocalhost(_ name: String) -> Bool {
        name.hasSuffix(".localhost") || HTTPServerConfiguration.isValidHost(name)
    }

    /// A name as compared: lower-cased, without a trailing dot (`localhost.` is `localhost`), an
    /// IPv6 literal in brackets in its canonical text (`[0:0:0:0:0:0:0:1]` is `[::1]`).
    static func normalized(_ name: Substring) -> String {
        var name = name.lowercased()
        if name.hasSuffix("."), name.count > 1 {
            name.removeLast()
        }
        if name.hasPrefix("["), name.hasSuffix("]") {
            var address = in6_addr()
            if inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &address) == 1 {
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                if inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil {
                    name = "[" + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "]"
                }
            }
        }
        return name
    }

    /// `name[:port]` without the port; an IPv6 literal keeps its brackets (`[::1]:8080` → `[::1]`).
    static func name(ofHostField field: String) -> Substring {
        let trimmed = field.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            return trimmed[...close]
        }
        return trimmed.prefix { $0 != ":" && $0 != " " && $0 != "\t" }
    }

    /// Whether `name` can be an entry of `allowedHosts`: `*`, a DNS name or an IPv4 literal
    /// (letters, digits, `-`, `_` and `.`), or an IPv6 literal in brackets — no port, scheme or
    /// path.
    static func isValidEntry(_ name: String) -> Bool {
        if name == "*" { return true }
        if name.hasPrefix("["), name.hasSuffix("]") {
            return name.count > 2 && name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }
    }

    /// What the `421` says: which names this server answers (not the listed names themselves:
    /// the page asking may be the one the check keeps out), and how to be answered otherwise.
    func refusal(host field: String) -> Response {
        let answered = switch self {
        case .any, .addressesAndLocalhost: "an address, localhost or a name under .localhost"
        case .names: "an address, localhost, a name under .localhost or a name in allowedHosts"
        }
        return Problem(
            type: Problem.type("misdirected-request"),
            title: "Misdirected Request",
            status: 421,
            detail: "this server has no access tokens and answers requests for \(answered) only, not for \"\(Self.name(ofHostField: field))\" (a page whose DNS name points here must not reach it); name the server by its address, add the name to allowedHosts, or configure access tokens"
        ).response
    }
}
