import MicroHTTP

/// Refuses state-changing requests a browser sends from another site's page: cross-site request
/// forgery. A form, or `fetch(url, {method: "POST", mode: "no-cors"})`, is sent without a
/// preflight, so CORS never stops it — only the page cannot read the answer; without access
/// tokens nothing else would (a page on `evil.example` could dispatch `counter/increase` to a
/// server on `127.0.0.1`). With tokens the check changes nothing: such a request cannot carry a
/// bearer token.
///
/// The rule is the one of Go's `http.CrossOriginProtection`: methods other than `GET`, `HEAD` and
/// `OPTIONS` are refused (`403`, problem `cross-origin-request-refused`) when the browser says
/// the request comes from another origin — `Sec-Fetch-Site` other than `same-origin` or `none`,
/// or, from browsers without it, an `Origin` whose host differs from `Host` — unless that origin
/// is allowed by `corsAllowedOrigins`. Requests without either header (curl, servers) pass.
enum CrossOriginWrites {
    /// The `403` for `request`, or nil when it may go on.
    static func refusal(for request: Request, cors: CORSPolicy) -> Response? {
        guard request.method != .GET, request.method != .HEAD, request.method != .OPTIONS else { return nil }
        let origin = request.headers[.origin]
        if let site = request.headers[.secFetchSite]?.lowercased() {
            if site == "same-origin" || site == "none" || cors.allows(origin: origin) { return nil }
            return refusal(origin: origin, site: site)
        }
        guard let origin else { return nil }
        if let host = request.headers[.host], authority(ofOrigin: origin) == Self.authority(host: host, scheme: scheme(of: origin)) {
            return nil
        }
        return cors.allows(origin: origin) ? nil : refusal(origin: origin, site: nil)
    }

    private static func refusal(origin: String?, site: String?) -> Response {
        let from = origin.map { "from \($0)" } ?? "from another site (Sec-Fetch-Site: \(site ?? ""))"
        return Problem(
            type: Problem.type("cross-origin-request-refused"),
            title: "Forbidden",
            status: 403,
            detail: "a request that changes state, sent by a browser \(from), is refused (cross-site request forgery); list the page's origin in corsAllowedOrigins to allow it"
        ).response
    }

    private static func scheme(of origin: String) -> String {
        origin.lowercased().hasPrefix("https://") ? "https" : "http"
    }

    /// `host[:port]` of an origin, lowercased, without its scheme's default port; nil for `null`
    /// or anything that is not `scheme://authority`.
    static func authority(ofOrigin origin: String) -> String? {
        let lowered = origin.lowercased()
        guard let separator = lowered.range(of: "://") else { return nil }
        return authority(host: String(lowered[separator.upperBound...]), scheme: String(lowered[..<separator.lowerBound]))
    }

    /// `host` (a `Host` header) lowercased, without the default port of `scheme`.
    static func authority(host: String, scheme: String) -> String {
        let lowered = host.lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        return lowered.hasSuffix(defaultPort) ? String(lowered.dropLast(defaultPort.count)) : lowered
    }
}
