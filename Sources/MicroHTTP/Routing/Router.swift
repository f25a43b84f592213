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
        /// For a path added as an instance of a parameter route (``Router/add(_:_:instanceOf:_:)``):
        /// that route, which it answers as (metrics, logs), and what its pattern captures from the path.
        var instance: (of: MatchedRoute, parameters: RouteParameters)?

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

        var matched: MatchedRoute { instance?.of ?? MatchedRoute(pattern: pattern.text, number: number) }

        var parameters: RouteParameters { instance?.parameters ?? RouteParameters() }
    }

    /// Literal patterns, in the order added.
    private var literalRoutes: [Route] = []
    /// The position in ``literalRoutes`` of each literal path: found by length and bytes, with
    /// no hashing and no allocation (``ExactBytesIndex``).
    private var literalPaths = ExactBytesIndex()
    /// Patterns with parameters, most specific first.
    private var parameterRoutes: [Route] = []
    /// The parameter routes a path may match, by the path's first segment: the position in
    /// ``candidateLists`` of the routes whose first segment is that literal, merged with those
    /// whose first segment is a parameter (in the order of ``parameterRoutes``). Trying only
    /// those skips the routes of other prefixes without looking at them.
    private var firstSegments = ExactBytesIndex()
    /// Lists of positions in ``parameterRoutes``.
    private var candidateLists: [[Int]] = []
    /// The positions of the parameter routes whose first segment is a parameter: the candidates
    /// for a path whose first segment no route spells.
    private var parameterFirstRoutes: [Int] = []
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
                if literalRoutes[known].instance != nil {
                    // A literal route takes the path over from an instance of a parameter route.
                    literalRoutes[known] = Route(pattern: parsed, number: patternCount)
                    patternCount += 1
                }
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
        indexFirstSegments()
    }

    /// Registers `handler` for `method` on `path`, a path that the parameter route `pattern` already
    /// added matches (`/viewmodels/counter` of `/viewmodels/:name`), as a literal route of its own:
    /// found by its bytes like every literal path (no parameter matching), given the parameters
    /// `pattern` captures from it, and reported as `pattern` (``respondRouted(to:)``'s route, the
    /// same label and number); ``routes`` does not list it. For paths a service knows when it
    /// builds its router, whose handler it can prepare.
    ///
    /// Returns false, adding nothing, when `path` is not an instance of `pattern` for `method`:
    /// not matched by it, or matched first by another parameter route, or a literal route already.
    /// Add it after the parameter routes: one added later is not weighed against it.
    @discardableResult
    public mutating func add(_ method: HTTPMethod, _ path: String, instanceOf pattern: String, _ handler: @escaping Handler) -> Bool {
        let literal = RoutePattern(path)
        guard literal.isLiteral else { return false }
        let found = Self.withBytes(of: literal.text) { matchParameterRoute(bytes: $0, method: method) }
        guard found.handler != nil, let route = found.route, route.pattern == RoutePattern(pattern).text else { return false }
        if let position = literalPaths.value(for: literal.text) {
            // Another method of the same instance; never a literal route's path.
            guard literalRoutes[position].instance?.of == route else { return false }
            literalRoutes[position].set(handler, for: method)
            return true
        }
        var instance = Route(pattern: literal, number: route.number)
        instance.instance = (route, found.parameters)
        instance.set(handler, for: method)
        literalPaths.set(literal.text, to: literalRoutes.count)
        literalRoutes.append(instance)
        return true
    }

    /// Rebuilds ``firstSegments``, ``candidateLists`` and ``parameterFirstRoutes`` (routes are
    /// added at start-up: a few dozen).
    private mutating func indexFirstSegments() {
        var lists: [String: [Int]] = [:]
        var order: [String] = []
        parameterFirstRoutes = []
        for (position, route) in parameterRoutes.enumerated() {
            if let first = route.pattern.firstLiteral {
                if lists[first] == nil { order.append(first) }
                lists[first, default: []].append(position)
            } else {
                parameterFirstRoutes.append(position)
            }
        }
        firstSegments = ExactBytesIndex()
        candidateLists = []
        for first in order {
            firstSegments.set(first, to: candidateLists.count)
            // Merged in the router's order: the rules (longest literal prefix, then the earliest
            // added) decide among every route that matches, whatever its first segment.
            candidateLists.append((lists[first, default: []] + parameterFirstRoutes).sorted())
        }
    }

    /// The positions in ``parameterRoutes`` of the routes the path of `bytes` may match, in order.
    private func candidates(forPath bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
        let slash = UInt8(ascii: "/")
        let start = bytes.first == slash ? 1 : 0
        let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
        guard let list = firstSegments.value(forBytes: UnsafeBufferPointer(rebasing: bytes[start..<end])) else {
            return parameterFirstRoutes
        }
        return candidateLists[list]
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
        for route in literalRoutes.filter({ $0.instance == nil }).sorted(by: { $0.pattern.text < $1.pattern.text }) + parameterRoutes {
            for method in route.methods.sorted(by: HTTPMethod.canonicalOrder) {
                routes.append((method, route.matched))
            }
        }
        return routes
    }

    /// The route whose path matches `path` (any method), or nil.
    public func route(matching path: String) -> MatchedRoute? {
        if let position = literalPaths.value(for: path) { return literalRoutes[position].matched }
        return Self.withBytes(of: path) { bytes in
            candidates(forPath: bytes).first { parameterRoutes[$0].pattern.match(bytes: bytes) != nil }
                .map { parameterRoutes[$0].matched }
        }
    }

    /// `body` with `path`'s UTF-8 bytes: in place for a native string, else a copy.
    private static func withBytes<Result>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        path.utf8.withContiguousStorageIfAvailable(body) ?? Array(path.utf8).withUnsafeBufferPointer(body)
    }

    /// The response, and the route that gave it (its pattern, `/viewmodels/:name`, and number), or
    /// nil when no route matched the path (404) — a bounded label for metrics, never the raw path.
    public func respondRouted(to request: Request) -> (response: Response, route: MatchedRoute?) {
        var allowed: Set<HTTPMethod> = []
        var matched: MatchedRoute?
        if let position = literalPaths.value(for: request.path) {
            let route = literalRoutes[position]
            if let handler = Self.handler(in: route, for: request.method) {
                return (handler(request, route.parameters), route.matched)
            }
            allowed.formUnion(route.methods)
            matched = route.matched
        }
        let found = Self.withBytes(of: request.path) { matchParameterRoute(bytes: $0, method: request.method) }
        if let handler = found.handler {
            return (handler(request, found.parameters), found.route)
        }
        allowed.formUnion(found.allowed)
        matched = matched ?? found.route
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

    /// What the parameter routes make of a path: the handler of the first route that matches it
    /// for `method` (with its parameters), else the methods of those that match it, and the first
    /// of them.
    private struct ParameterMatch {
        var handler: Handler?
        var parameters = RouteParameters()
        var route: MatchedRoute?
        var allowed: [HTTPMethod] = []
    }

    /// Tries the candidate parameter routes (``candidates(forPath:)``) on the path of `bytes`.
    private func matchParameterRoute(bytes: UnsafeBufferPointer<UInt8>, method: HTTPMethod) -> ParameterMatch {
        var found = ParameterMatch()
        // A candidate of another count of segments is passed over without being tried: a path
        // under `/stores/{id}` has a dozen candidates (about 100 instructions to count, 1,000
        // fewer for `GET /stores/{id}/viewmodels/{name}`).
        let segmentCount = RoutePattern.segmentCount(of: bytes)
        for position in candidates(forPath: bytes) where parameterRoutes[position].pattern.segmentCount == segmentCount {
            guard let parameters = parameterRoutes[position].pattern.match(bytes: bytes) else { continue }
            let route = parameterRoutes[position]
            if let handler = Self.handler(in: route, for: method) {
                return ParameterMatch(handler: handler, parameters: parameters, route: route.matched)
            }
            found.allowed += route.methods
            found.route = found.route ?? route.matched
        }
        return found
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
