import MicroHTTP

/// Which `Host` names a server without access tokens answers (``ServiceConfiguration/allowedHosts``).
///
/// Without tokens, anything that reaches the port may read and dispatch. A browser keeps a
/// server on `127.0.0.1` out of other sites' reach by the same-origin rule, but a page whose
/// DNS name its owner rebinds to `127.0.0.1` (DNS rebinding) is same-origin with the server under
/// that name: its requests carry that name in `Host`, which is how they are told apart and
/// answered `421 Misdirected Request`. With tokens the check is off: such a page has no token.
enum HostCheck: Sendable, Equatable {
    /// Every name (a server reachable from other machines, which its clients name as they like).
    case any
    /// `localhost`, a name under `.localhost` (RFC 6761) and loopback address literals.
    case loopback
    /// These names, lower-cased (IPv6 literals in brackets).
    case names(Set<String>)

    /// The check `allowedHosts` asks for on a server listening on `listenHost`: nil, the
    /// automatic choice, is ``loopback`` on a loopback address and ``any`` otherwise; `*` is any.
    init(allowedHosts: [String]?, listenHost: String?) {
        guard let allowedHosts else {
            self = listenHost.map(ListenHost.isLoopback) == true ? .loopback : .any
            return
        }
        self = allowedHosts.contains("*") ? .any : .names(Set(allowedHosts.map { $0.lowercased() }))
    }

    /// Whether a request with this `Host` field is answered. A request without one (HTTP/1.0)
    /// is: browsers always send it.
    func accepts(host field: String?) -> Bool {
        guard let field else { return true }
        var name = Self.name(ofHostField: field).lowercased()
        if name.hasSuffix("."), name.count > 1 {
            name.removeLast()  // a fully qualified name: "localhost." is "localhost"
        }
        switch self {
        case .any:
            return true
        case .loopback:
            return name == "localhost" || name.hasSuffix(".localhost") || (!name.isEmpty && ListenHost.isLoopback(name))
        case .names(let names):
            return names.contains(name)
        }
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
    /// (letters, digits, `-` and `.`), or an IPv6 literal in brackets — no port, scheme or path.
    static func isValidEntry(_ name: String) -> Bool {
        if name == "*" { return true }
        if name.hasPrefix("["), name.hasSuffix("]") {
            return name.count > 2 && name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// What the `421` says: which names this server answers, and how to be answered otherwise.
    func refusal(host field: String) -> Response {
        let answered = switch self {
        case .any: "any name"
        case .loopback: "localhost, 127.0.0.1 or [::1]"
        case .names(let names): names.sorted().joined(separator: ", ")
        }
        return Problem(
            type: Problem.type("misdirected-request"),
            title: "Misdirected Request",
            status: 421,
            detail: "this server has no access tokens and answers requests for \(answered) only, not for \"\(Self.name(ofHostField: field))\" (a page whose DNS name points here must not reach it); name the server as it is listed, add the name to allowedHosts, or configure access tokens"
        ).response
    }
}
