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

    /// A method's handler, in a struct: a closure kept in a tuple inside an array is stored at
    /// the most general abstraction and wrapped in a thunk, a new allocation, each time it is
    /// taken out to be called.
    private struct MethodHandler: Sendable {
        let method: HTTPMethod
        var handler: Handler
    }

    private struct Route: Sendable {
        let pattern: RoutePattern
        /// Its position among the router's patterns, in the order they were first added.
        let number: Int
        /// By method, in the order added: a route has a handful, and comparing the request's
        /// method with each costs less than hashing it into a dictionary.
        var handlers: [MethodHandler] = []

        var methods: [HTTPMethod] { handlers.map(\.method) }

        mutating func set(_ handler: @escaping Handler, for method: HTTPMethod) {
            if let index = handlers.firstIndex(where: { $0.method == method }) {
                handlers[index].handler = handler
            } else {
                handlers.append(MethodHandler(method: method, handler: handler))
            }
        }

        func handler(for method: HTTPMethod) -> Handler? {
            for index in handlers.indices where handlers[index].method == method {
                return handlers[index].handler
            }
            return nil
        }

        var matched: MatchedRoute { MatchedRoute(pattern: pattern.text, number: number) }
    }

    /// Literal patterns, in the order added.
    private var literalRoutes: [Route] = []
    /// The position in ``literalRoutes`` of each literal path: found by length and bytes, with
    /// no hashing and no allocation (``ExactBytesIndex``).
    private var literalPaths = ExactBytesIndex()
    /// Patterns with parameters, most specific first.
    private var parameterRoutes: [Route] = []
    /// How many patterns have been added (the next one's ``MatchedRoute/number``).
    public private(set) var patternCount = 0

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
            let position: Int
            if let known = literalPaths.value(for: parsed.text) {
                position = known
            } else {
                position = literalRoutes.count
                literalRoutes.append(Route(pattern: parsed, number: patternCount))
                literalPaths.set(parsed.text, to: position)
                patternCount += 1
            }
            literalRoutes[position].set(handler, for: method)
            return
        }
        if let index = parameterRoutes.firstIndex(where: { $0.pattern == parsed }) {
            parameterRoutes[index].set(handler, for: method)
            return
        }
        var route = Route(pattern: parsed, number: patternCount)
        patternCount += 1
        route.set(handler, for: method)
        let position = parameterRoutes.firstIndex { $0.pattern.literalPrefixLength < parsed.literalPrefixLength }
        parameterRoutes.insert(route, at: position ?? parameterRoutes.endIndex)
    }

    /// Routes `request` to its handler, or answers 404 / 405.
    public func respond(to request: Request) -> Response {
        respondRouted(to: request).response
    }

    /// The route patterns with their methods, in the order they were added (literal ones first).
    public var routes: [(method: HTTPMethod, pattern: String)] {
        numberedRoutes.map { ($0.method, $0.route.pattern) }
    }

    /// ``routes`` with each pattern's ``MatchedRoute`` (its number: tables by route index).
    public var numberedRoutes: [(method: HTTPMethod, route: MatchedRoute)] {
        var routes: [(method: HTTPMethod, route: MatchedRoute)] = []
        for route in literalRoutes.sorted(by: { $0.pattern.text < $1.pattern.text }) + parameterRoutes {
            for method in route.methods.sorted(by: HTTPMethod.canonicalOrder) {
                routes.append((method, route.matched))
            }
        }
        return routes
    }

    /// The route whose path matches `path` (any method), or nil.
    public func route(matching path: String) -> MatchedRoute? {
        if let position = literalPaths.value(for: path) { return literalRoutes[position].matched }
        return parameterRoutes.first { $0.pattern.match(path) != nil }?.matched
    }

    /// The response, and the route that gave it (its pattern, `/viewmodels/:name`, and number), or
    /// nil when no route matched the path (404) — a bounded label for metrics, never the raw path.
    public func respondRouted(to request: Request) -> (response: Response, route: MatchedRoute?) {
        var allowed: Set<HTTPMethod> = []
        var matched: MatchedRoute?
        if let position = literalPaths.value(for: request.path) {
            let route = literalRoutes[position]
            if let handler = Self.handler(in: route, for: request.method) {
                return (handler(request, RouteParameters()), route.matched)
            }
            allowed.formUnion(route.methods)
            matched = route.matched
        }
        for route in parameterRoutes {
            guard let parameters = route.pattern.match(request.path) else { continue }
            if let handler = Self.handler(in: route, for: request.method) {
                return (handler(request, parameters), route.matched)
            }
            allowed.formUnion(route.methods)
            matched = matched ?? route.matched
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
        if let handler = route.handler(for: method) {
            return handler
        }
        return method == .HEAD ? route.handler(for: .GET) : nil
    }
}

/// The route that answered a request: its pattern, a bounded label (`/viewmodels/:name`), and its
/// number, its position among its router's patterns (``Router/patternCount``), for tables
/// indexed by route instead of hashing the pattern on every request.
public struct MatchedRoute: Sendable, Equatable {
    /// The pattern as registered.
    public let pattern: String
    /// Its position among the router's patterns, from 0, in the order they were first added.
    public let number: Int

    /// A route `pattern` numbered `number`.
    public init(pattern: String, number: Int) {
        self.pattern = pattern
        self.number = number
    }
}
