import MicroHTTP

/// Which browser origins may call the API from their pages (CORS), and the headers that say so.
///
/// Listed origins get their `Origin` echoed with `Access-Control-Allow-Credentials: true` (the
/// page may send its cookie and `Authorization`), on every answer, errors included, so the page
/// can read them; `*` lets any origin read, never with credentials. An origin not listed gets no
/// CORS header: the browser keeps the answer from the page.
public struct CORSPolicy: Sendable, Equatable {
    /// The origins allowed.
    public enum Origins: Sendable, Equatable {
        /// CORS off: no CORS headers, preflights are ordinary `OPTIONS` requests.
        case none
        /// `*`: any origin may read answers, without credentials.
        case any
        /// These origins (lowercased `scheme://host[:port]`), with credentials.
        case listed(Set<String>)
    }

    /// The origins whose pages may read answers.
    public let origins: Origins

    /// Methods a preflight allows: every method a route takes (`PUT` and `DELETE` manage stores).
    static let allowedMethods = "GET, HEAD, POST, PUT, DELETE, OPTIONS"
    /// Request headers a preflight allows.
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID"
    /// Response headers a page may read (`Location`: where `PUT /stores/{id}` made a store).
    static let exposedHeaders = "ETag, Idempotent-Replayed, Location, ReMVVM-Replay, Retry-After, WWW-Authenticate"
    /// How long a browser may cache a preflight's answer, in seconds.
    static let maxAgeSeconds = 600

    /// CORS off.
    public static let off = CORSPolicy(origins: .none)

    private init(origins: Origins) {
        self.origins = origins
    }

    /// A policy from `corsAllowedOrigins`: empty (off), `["*"]`, or origins such as
    /// `https://app.example.com` and `http://localhost:3000`. Throws for anything else (a path,
    /// a trailing slash, another scheme, `*` mixed with origins).
    public init(allowedOrigins: [String]) throws(ServiceConfigurationError) {
        let trimmed = allowedOrigins.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        if trimmed.isEmpty {
            origins = .none
        } else if trimmed == ["*"] {
            origins = .any
        } else {
            var listed = Set<String>()
            for origin in trimmed {
                guard let normalized = Self.normalizedOrigin(origin) else {
                    throw ServiceConfigurationError(
                        property: "corsAllowedOrigins",
                        message: "corsAllowedOrigins: \"\(origin)\" is not an origin; write scheme://host[:port] (http or https, no path, no trailing slash), or * alone"
                    )
                }
                listed.insert(normalized)
            }
            origins = .listed(listed)
        }
    }

    /// Whether CORS is on.
    public var isEnabled: Bool { origins != .none }

    /// Whether pages from `origin` may call the API (`*`, or listed).
    func allows(origin: String?) -> Bool {
        switch origins {
        case .none: false
        case .any: origin != nil
        case .listed(let listed): origin.map { listed.contains($0.lowercased()) } ?? false
        }
    }

    /// The CORS headers of an ordinary answer to a request from `origin`.
    func headers(forOrigin origin: String?) -> [(String, String)] {
        switch origins {
        case .none:
            return []
        case .any:
            return origin == nil ? [] : [("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", Self.exposedHeaders)]
        case .listed(let listed):
            // Answers differ by Origin: caches must keep them apart, whatever this one carried.
            guard let origin, listed.contains(origin.lowercased()) else { return [("Vary", "Origin")] }
            return [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Allow-Credentials", "true"),
                ("Access-Control-Expose-Headers", Self.exposedHeaders),
                ("Vary", "Origin"),
            ]
        }
    }

    /// The answer to a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`):
    /// `204` with what may be sent for an allowed origin; `403` problem otherwise. Nil when CORS
    /// is off (the request is an ordinary `OPTIONS`).
    func preflight(origin: String) -> Response? {
        let allowed: Bool
        switch origins {
        case .none: return nil
        case .any: allowed = true
        case .listed(let listed): allowed = listed.contains(origin.lowercased())
        }
        guard allowed else {
            return Problem(
                type: Problem.type("cors-origin-not-allowed"),
                title: "Forbidden",
                status: 403,
                detail: "the origin \(origin) is not in corsAllowedOrigins; pages from it cannot call this server",
                headers: ["Vary": "Origin"]
            ).response
        }
        var headers = HTTPHeaders(headers(forOrigin: origin))
        headers.add(name: "Access-Control-Allow-Methods", value: Self.allowedMethods)
        headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedHeaders)
        headers.add(name: "Access-Control-Max-Age", value: String(Self.maxAgeSeconds))
        if case .listed = origins {
            headers.replaceOrAdd(name: "Vary", value: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        }
        return Response(status: 204, headers: headers)
    }

    /// `scheme://host[:port]` lowercased, or nil when `text` is not such an origin.
    static func normalizedOrigin(_ text: String) -> String? {
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https://"
        } else if lowered.hasPrefix("http://") {
            scheme = "http://"
        } else {
            return nil
        }
        let authority = lowered.dropFirst(scheme.count)
        guard !authority.isEmpty,
              authority.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }),
              authority.allSatisfy(\.isASCII) else { return nil }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let port = authority[authority.index(after: colon)...]
            guard let number = Int(port), (1...65_535).contains(number) else { return nil }
            // A browser never sends its scheme's default port: `https://a.example:443` is
            // `https://a.example` (it was accepted and then never matched).
            if number == (scheme == "https://" ? 443 : 80) {
                return scheme + authority[..<colon]
            }
        }
        return lowered
    }
}

private extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
