/// A ``Responder`` that dispatches on method and path to registered handlers.
///
/// Patterns are `/`-separated segments, each literal or a `:name` parameter matching one
/// non-empty segment (`/viewmodels/:name`). A path matching only literal segments wins over
/// one with parameters; among parameter routes, the one with the longest literal prefix wins,
/// then the earliest registered. Matching is on the percent-decoded path and is exact: byte for
/// byte in UTF-8, without Unicode normalization (a trailing slash is a different path).
///
/// `HEAD` is served by the `GET` route when no `HEAD` route exists (the server drops the body);
/// a path that matches but not for the request's method gets ``methodNotAllowed`` plus an
/// `Allow` header listing the methods that would work (`HEAD` included when `GET` is).
public struct Router: Responder {
    /// A route handler: the request and the parameters its pattern captured.
    public typealias Handler = @Sendable (Request, RouteParameters) -> Response

    private struct Route: Sendable {
        let pattern: RoutePattern
        var handlers: [HTTPMethod: Handler]
    }

    /// Literal patterns, by path: one dictionary lookup, no allocation.
    private var literalRoutes: [String: Route] = [:]
    /// Patterns with parameters, most specific first.
    private var parameterRoutes: [Route] = []

    /// The response for a path no route matches; default: 404 plain text.
    public var notFound: @Sendable (Request) -> Response = { request in
        .text("No resource at \(request.path)\n", status: 404)
    }

    /// The response for a known path and an unsupported method (default: 405 plain text); the
    /// router adds the `Allow` header to whatever this returns.
    public var methodNotAllowed: @Sendable (Request, [HTTPMethod]) -> Response = { request, allowed in
        .text(
            "\(request.method) is not allowed on \(request.path); use \(allowed.map(\.rawValue).joined(separator: ", ")).\n",
            status: 405
        )
    }

    /// The response for a request the server refused before routing (e.g. 413); default: plain text.
    public var failure: @Sendable (RequestFailure, HTTPMethod, String) -> Response = { failure, _, _ in
        .text(failure.message + "\n", status: failure.status)
    }

    /// Creates a router with no routes.
    public init() {}

    /// Registers `handler` for `method` on `pattern`, replacing an earlier handler for the same pair.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let parsed = RoutePattern(pattern)
        if parsed.isLiteral {
            literalRoutes[parsed.text, default: Route(pattern: parsed, handlers: [:])].handlers[method] = handler
            return
        }
        if let index = parameterRoutes.firstIndex(where: { $0.pattern == parsed }) {
            parameterRoutes[index].handlers[method] = handler
            return
        }
        let position = parameterRoutes.firstIndex { $0.pattern.literalPrefixLength < parsed.literalPrefixLength }
        parameterRoutes.insert(Route(pattern: parsed, handlers: [method: handler]), at: position ?? parameterRoutes.endIndex)
    }

    /// Routes `request` to its handler, or answers 404 / 405.
    public func respond(to request: Request) -> Response {
        respondRouted(to: request).response
    }

    /// The route patterns with their methods, in the order they were added (literal ones first).
    public var routes: [(method: HTTPMethod, pattern: String)] {
        var routes: [(method: HTTPMethod, pattern: String)] = []
        for route in literalRoutes.values.sorted(by: { $0.pattern.text < $1.pattern.text }) + parameterRoutes {
            for method in route.handlers.keys.sorted(by: HTTPMethod.canonicalOrder) {
                routes.append((method, route.pattern.text))
            }
        }
        return routes
    }

    /// The pattern of the route whose path matches `path` (any method), or nil.
    public func pattern(matching path: String) -> String? {
        if let route = literalRoutes[path] { return route.pattern.text }
        return parameterRoutes.first { $0.pattern.match(path) != nil }?.pattern.text
    }

    /// The response, and the pattern of the route that gave it (`/viewmodels/:name`), or nil when
    /// no route matched the path (404) — a bounded label for metrics, never the raw path.
    public func respondRouted(to request: Request) -> (response: Response, route: String?) {
        var allowed: Set<HTTPMethod> = []
        var matched: String?
        if let route = literalRoutes[request.path] {
            if let handler = Self.handler(in: route, for: request.method) {
                return (handler(request, RouteParameters()), route.pattern.text)
            }
            allowed.formUnion(route.handlers.keys)
            matched = route.pattern.text
        }
        for route in parameterRoutes {
            guard let parameters = route.pattern.match(request.path) else { continue }
            if let handler = Self.handler(in: route, for: request.method) {
                return (handler(request, parameters), route.pattern.text)
            }
            allowed.formUnion(route.handlers.keys)
            matched = matched ?? route.pattern.text
        }
        guard !allowed.isEmpty else {
            return (notFound(request), nil)
        }
        if allowed.contains(.GET) {
            allowed.insert(.HEAD)
        }
        let methods = allowed.sorted(by: HTTPMethod.canonicalOrder)
        var response = methodNotAllowed(request, methods)
        response.headers.replaceOrAdd(name: "Allow", value: methods.map(\.rawValue).joined(separator: ", "))
        return (response, matched)
    }

    /// The problem for a request refused before routing (413, 400, 501, 503).
    public func respond(to failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders) -> Response {
        self.failure(failure, method, path)
    }

    private static func handler(in route: Route, for method: HTTPMethod) -> Handler? {
        if let handler = route.handlers[method] {
            return handler
        }
        return method == .HEAD ? route.handlers[.GET] : nil
    }
}
