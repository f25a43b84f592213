public import MicroHTTP

/// What answers every request of the service: CORS (preflights, and the headers on every answer
/// to an allowed origin), then the routes.
public struct ServiceResponder: Responder {
    let router: Router
    let cors: CORSPolicy

    public func respond(to request: Request) -> Response {
        let origin = request.headers["Origin"]
        if request.method == .OPTIONS, let origin, request.headers.contains("Access-Control-Request-Method"),
           let preflight = cors.preflight(origin: origin) {
            return preflight
        }
        var response = router.respond(to: request)
        addCORSHeaders(to: &response, origin: origin)
        return response
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
