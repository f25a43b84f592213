import CoreMetrics
import MicroHTTP
import Synchronization

/// `http_requests_total{method,route,code}` and `http_request_duration_seconds{method,route}`.
///
/// Every (method, route) pair is known when the router is built, so its handles are made up
/// front and looked up without a lock; a status code's counter is made the first time it is
/// seen (one atomic slot per code). Labels are bounded: the route is the pattern
/// (`/viewmodels/:name`), `unmatched` for paths no route knows, and the method one of the
/// standard ones or `other`.
final class HTTPMetrics: Sendable {
    /// The handles of one (method, route).
    final class Route: Sendable {
        let method: String
        let route: String
        let duration: CoreMetrics.Timer
        private let counters: [CounterSlot]
        private let factory: any MetricsFactory

        init(method: String, route: String, factory: any MetricsFactory) {
            self.method = method
            self.route = route
            self.factory = factory
            duration = CoreMetrics.Timer(
                label: "http_request_duration_seconds", dimensions: [("method", method), ("route", route)], factory: factory
            )
            counters = (0..<HTTPMetrics.codes.count).map { _ in CounterSlot() }
        }

        /// Counts one answer with `status`.
        func count(status: Int) {
            let index = HTTPMetrics.codes.contains(status) ? status - HTTPMetrics.codes.lowerBound : 0
            if let box = counters[index].box.load() {
                box.counter.increment()
                return
            }
            let code = HTTPMetrics.codes.contains(status) ? String(status) : "other"
            let made = CounterBox(CoreMetrics.Counter(
                label: "http_requests_total",
                dimensions: [("method", method), ("route", route), ("code", code)],
                factory: factory
            ))
            counters[index].box.storeIfNil(made).counter.increment()
        }
    }

    /// One status code's counter, made when the code is first seen.
    final class CounterSlot: Sendable {
        let box = AtomicLazyReference<CounterBox>()
    }

    final class CounterBox: Sendable {
        let counter: CoreMetrics.Counter
        init(_ counter: CoreMetrics.Counter) { self.counter = counter }
    }

    /// The status codes with a counter of their own; anything else counts as `other`.
    static let codes = 100...599
    /// Methods that are their own label value.
    static let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]

    private let routes: [HTTPMethod: [String: Route]]
    private let unmatched: [HTTPMethod: Route]
    private let other: Route

    /// Handles for every (method, pattern) of `routes` — with `HEAD` beside `GET`, and `OPTIONS`
    /// (preflights) on every pattern — plus `unmatched` for each method.
    init(routes registered: [(method: HTTPMethod, pattern: String)], factory: any MetricsFactory) {
        var routes: [HTTPMethod: [String: Route]] = [:]
        var unmatched: [HTTPMethod: Route] = [:]
        var pairs = registered
        for (method, pattern) in registered {
            if method == .GET { pairs.append((.HEAD, pattern)) }
            pairs.append((.OPTIONS, pattern))
        }
        for (method, pattern) in pairs where Self.methods.contains(method) && routes[method]?[pattern] == nil {
            routes[method, default: [:]][pattern] = Route(method: method.rawValue, route: pattern, factory: factory)
        }
        for method in Self.methods {
            unmatched[method] = Route(method: method.rawValue, route: "unmatched", factory: factory)
        }
        self.routes = routes
        self.unmatched = unmatched
        other = Route(method: "other", route: "unmatched", factory: factory)
    }

    /// The handles for a request with `method` that `route` (a pattern, or nil: none) answered.
    func route(method: HTTPMethod, route: String?) -> Route {
        // A known path with a method it does not take (405) counts under its pattern too, when
        // that method has handles there; otherwise as unmatched.
        guard let route, let handles = routes[method]?[route] else { return unmatched[method] ?? other }
        return handles
    }
}
