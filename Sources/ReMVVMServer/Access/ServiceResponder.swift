public import MicroHTTP
import ConcurrencyKit

/// What answers every request of the service: without access tokens, a `Host` the server does
/// not answer gets `421` (`HostCheck`); then CORS preflights (they never need a token), then
/// state-changing requests a browser sends from another origin get `403` (`CrossOriginWrites`),
/// then access control (`AccessGate`), then the routes; every answer to an allowed origin,
/// `401` and `403` included, carries the CORS headers; each answer counted and timed when metrics
/// are on.
public struct ServiceResponder: Responder {
    let router: Router
    let cors: CORSPolicy
    let access: AccessGate
    /// Which `Host` names are answered (``HostCheck/any`` with access tokens).
    let hosts: AcceptedHosts
    let metrics: HTTPMetrics?

    /// With tokens configured, the gate keeps each connection's verified credential in its memo.
    public var usesConnectionMemos: Bool { access.isEnabled }

    /// The answer to `request`: the `Host` check, CORS preflights, access control, then the
    /// routes; counted and timed when metrics are on.
    public func respond(to request: Request) -> Response {
        measured(request.method) { answer(request) }
    }

    /// `make`'s answer, counted and timed under its route's pattern when metrics are on.
    private func measured(_ method: HTTPMethod, _ make: () -> (response: Response, route: MatchedRoute?)) -> Response {
        guard let metrics else {
            return make().response
        }
        let started = MonotonicClock.nanoseconds()
        let (response, route) = make()
        let handles = metrics.route(method: method, route: route)
        switch response.body {
        case .pending(let pending):
            pending.whenCompleted { completed in
                handles.count(status: completed.status)
                handles.duration.record(nanoseconds: MonotonicClock.nanoseconds() - started)
            }
        case .stream:
            // An event stream lasts as long as its client: counted, not timed.
            handles.count(status: response.status)
        default:
            handles.count(status: response.status)
            handles.duration.record(nanoseconds: MonotonicClock.nanoseconds() - started)
        }
        return response
    }

    /// The answer and the pattern of the route that gave it.
    private func answer(_ request: Request) -> (response: Response, route: MatchedRoute?) {
        if !hosts.acceptsAll, let host = request.headers[.host], !hosts.accepts(host: host) {
            return (hosts.check.refusal(host: host), router.route(matching: request.path))
        }
        let origin = request.headers[.origin]
        if request.method == .OPTIONS, let origin, request.headers.contains(.accessControlRequestMethod),
           let preflight = cors.preflight(origin: origin) {
            return (preflight, router.route(matching: request.path))
        }
        if let refusal = CrossOriginWrites.refusal(for: request, cors: cors) {
            return (refusal, router.route(matching: request.path))
        }
        var (response, route) = access.isEnabled ? routeIfAllowed(request) : router.respondRouted(to: request)
        addCORSHeaders(to: &response, origin: origin)
        return (response, route)
    }

    /// The route's answer, or the `401` / `403` instead (counted under the route's pattern).
    private func routeIfAllowed(_ request: Request) -> (response: Response, route: MatchedRoute?) {
        if let refusal = access.refusal(for: request) {
            return (refusal, router.route(matching: request.path))
        }
        let routed = router.respondRouted(to: request)
        switch routed.response.body {
        case .stream, .pending:
            // A pending answer may be a stream answered later (a replica catching up with the
            // client's last version).
            if let deadline = access.streamValidUntil(for: request) {
                StreamDeadline.close(streamOf: routed.response, at: deadline)
            }
        default:
            break
        }
        return routed
    }

    /// The answer to a request refused before routing (413, 400, 501, 503), with CORS headers;
    /// an `EventSource` at the connection limit or during shutdown is told to come back instead.
    public func respond(to failure: RequestFailure, method: HTTPMethod, path: String, headers: HTTPHeaders) -> Response {
        // Not access-checked: these answers (413, 400, 501, 503) come before routing, read no
        // data and change nothing, and they name neither a token nor the path. An allowed
        // origin still gets its CORS headers, so that a page sees the 413 rather than a
        // network error, and they are counted like every other answer (a 503 at the connection
        // limit or a 413 must show).
        var response = measured(method) {
            var response = router.respond(to: failure, method: method, path: path, headers: headers)
            addCORSHeaders(to: &response, origin: headers[.origin])
            return (response, router.route(matching: path))
        }
        // Counted as the 503 it stands for; an EventSource gets what makes it come back.
        if let reconnect = Self.reconnectLater(for: failure, method: method, path: path, headers: headers) {
            response = reconnect
            addCORSHeaders(to: &response, origin: headers[.origin])
        }
        return response
    }

    private func addCORSHeaders(to response: inout Response, origin: String?) {
        for (name, value) in cors.headers(forOrigin: origin) {
            if name == "Vary", let vary = response.headers["Vary"] {
                if !vary.lowercased().contains("origin") {
                    response.headers.replaceOrAdd(name: "Vary", value: vary + ", Origin")
                }
            } else {
                response.headers.replaceOrAdd(name: name, value: value)
            }
        }
    }
}
