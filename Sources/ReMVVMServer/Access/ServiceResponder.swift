public import MicroHTTP

/// What answers every request of the service: CORS (preflights, and the headers on every answer
/// to an allowed origin), then the routes; each answer counted and timed when metrics are on.
public struct ServiceResponder: Responder {
    let router: Router
    let cors: CORSPolicy
    let metrics: HTTPMetrics?

    public func respond(to request: Request) -> Response {
        guard let metrics else {
            return answer(request).response
        }
        let started = ContinuousClock.now
        let (response, route) = answer(request)
        let handles = metrics.route(method: request.method, route: route)
        switch response.body {
        case .pending(let pending):
            pending.whenCompleted { completed in
                handles.count(status: completed.status)
                handles.duration.recordNanoseconds(ServiceMetrics.nanoseconds(ContinuousClock.now - started))
            }
        case .stream:
            // An event stream lasts as long as its client: counted, not timed.
            handles.count(status: response.status)
        default:
            handles.count(status: response.status)
            handles.duration.recordNanoseconds(ServiceMetrics.nanoseconds(ContinuousClock.now - started))
        }
        return response
    }

    /// The answer and the pattern of the route that gave it.
    private func answer(_ request: Request) -> (response: Response, route: String?) {
        let origin = request.headers["Origin"]
        if request.method == .OPTIONS, let origin, request.headers.contains("Access-Control-Request-Method"),
           let preflight = cors.preflight(origin: origin) {
            return (preflight, router.pattern(matching: request.path))
        }
        var (response, route) = router.respondRouted(to: request)
        addCORSHeaders(to: &response, origin: origin)
        return (response, route)
    }

    public func respond(to failure: RequestFailure, method: HTTPMethod, path: String) -> Response {
        // Refused before the head was read whole: no Origin to answer to.
        router.respond(to: failure, method: method, path: path)
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
