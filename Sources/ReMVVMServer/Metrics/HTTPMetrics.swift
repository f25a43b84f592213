import ConcurrencyKit
import CoreMetrics
import MicroHTTP

/// `http_requests_total{method,route,code}` and `http_request_duration_seconds{method,route}`.
///
/// Every (method, route) pair is known when the router is built, so its handles are made up
/// front and looked up without a lock; a status code's counter is made the first time it is
/// seen (in a table per route, under one lock), the first code's also kept beside the table,
/// read without the lock. Labels are bounded: the route is the pattern
/// (`/viewmodels/:name`), `unmatched` for paths no route knows, and the method one of the
/// standard ones or `other`.
final class HTTPMetrics: Sendable {
    /// The handles of one (method, route).
    final class Route: Sendable {
        let method: String
        let route: String
        /// How long its answers took (``DurationHistogram``: no lock, one bucket touched).
        let duration: DurationHistogram
        /// By status code (`status - 100`; slot 0 also counts codes outside 100...599 as
        /// `other`), made when first seen. A lock, not an atomic reference per code:
        /// `AtomicLazyReference.load()` is not specialized for its type and looked its generic
        /// metadata up on every answer (about 830 instructions; the lock costs about 100).
        private let counters: Lock<[CoreMetrics.Counter?]>
        /// The counter of the first code counted (a ``UsualCounter``), read without the lock: a
        /// route answers one code most of the time (`200`, `201`, `304`), and the lock cost every
        /// answer about 120 instructions.
        private let usual = SetOnceReference()
        private let factory: any MetricsFactory

        /// A code's slot and its counter.
        private final class UsualCounter: Sendable {
            let index: Int
            let counter: CoreMetrics.Counter

            init(index: Int, counter: CoreMetrics.Counter) {
                self.index = index
                self.counter = counter
            }
        }

        init(method: String, route: String, factory: any MetricsFactory, durations: DurationHistogramFamily) {
            self.method = method
            self.route = route
            self.factory = factory
            duration = durations.histogram(labels: [("method", method), ("route", route)])
            counters = Lock(Array(repeating: nil, count: HTTPMetrics.codes.count))
        }

        /// Counts one answer with `status`.
        func count(status: Int) {
            let known = HTTPMetrics.isKnownCode(status)
            let index = known ? status - HTTPMetrics.lowestCode : 0
            let usualCounter = usual.load().map { unsafeDowncast($0, to: UsualCounter.self) }
            if let usualCounter, usualCounter.index == index {
                usualCounter.counter.increment()
                return
            }
            let counter = counters.withLock { counters in
                if let counter = counters[index] { return counter }
                let made = CoreMetrics.Counter(
                    label: "http_requests_total",
                    dimensions: [("method", method), ("route", route), ("code", known ? String(status) : "other")],
                    factory: factory
                )
                counters[index] = made
                return made
            }
            if usualCounter == nil {
                usual.storeIfNil(UsualCounter(index: index, counter: counter))
            }
            counter.increment()
        }
    }

    /// The status codes with a counter of their own; anything else counts as `other`.
    static let codes = lowestCode...highestCode
    private static let lowestCode = 100
    private static let highestCode = 599

    /// Whether `status` has a counter of its own (two comparisons, on every answer).
    private static func isKnownCode(_ status: Int) -> Bool {
        status >= lowestCode && status <= highestCode
    }

    /// Methods that are their own label value.
    static let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]

    /// By the method's position in ``methods``, then by the route's number
    /// (``MicroHTTP/MatchedRoute/number``): two array lookups a request, no hash of the pattern.
    private let routes: [[Route?]]
    /// `unmatched` of each method, by its position in ``methods``.
    private let unmatched: [Route]
    private let other: Route

    /// Handles for every (method, pattern) of `routes` — with `HEAD` beside `GET`, and `OPTIONS`
    /// (preflights) on every pattern — plus `unmatched` for each method.
    init(routes registered: [(method: HTTPMethod, route: MatchedRoute)], factory: any MetricsFactory, durations: DurationHistogramFamily) {
        let count = (registered.map(\.route.number).max() ?? -1) + 1
        var routes = [[Route?]](repeating: Array(repeating: nil, count: count), count: Self.methods.count)
        var pairs = registered
        for (method, route) in registered {
            if method == .GET { pairs.append((.HEAD, route)) }
            pairs.append((.OPTIONS, route))
        }
        for (method, route) in pairs {
            guard let index = Self.position(of: method), routes[index][route.number] == nil else { continue }
            routes[index][route.number] = Route(method: method.rawValue, route: route.pattern, factory: factory, durations: durations)
        }
        self.routes = routes
        unmatched = Self.methods.map { Route(method: $0.rawValue, route: "unmatched", factory: factory, durations: durations) }
        other = Route(method: "other", route: "unmatched", factory: factory, durations: durations)
    }

    /// The handles for a request with `method` that `route` (nil: none) answered.
    func route(method: HTTPMethod, route: MatchedRoute?) -> Route {
        guard let index = Self.position(of: method) else { return other }
        // A known path with a method it does not take (405) counts under its pattern too, when
        // that method has handles there; otherwise as unmatched.
        // The pattern compared too (the same string, so at once): a route of another router
        // with the same number never counts under this one's pattern.
        guard let route, route.number < routes[index].count, let handles = routes[index][route.number],
              handles.route == route.pattern else {
            return unmatched[index]
        }
        return handles
    }

    /// Where `method` is in ``methods``, or nil for any other method.
    private static func position(of method: HTTPMethod) -> Int? {
        for index in methods.indices where methods[index] == method {
            return index
        }
        return nil
    }
}
