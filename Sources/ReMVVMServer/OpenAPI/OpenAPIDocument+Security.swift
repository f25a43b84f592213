import MicroHTTP

extension OpenAPIDocument {
    /// How a client presents a token: the `Authorization: Bearer` field everywhere; for the event
    /// streams (``AccessGate/acceptsCookieAndQuery(_:)``) also the cookie or the query parameter
    /// (`EventSource` cannot set headers).
    static let securitySchemes: JSONValue = [
        "bearer": [
            "type": "http", "scheme": "bearer",
            "description": "A static token or a JWT (HS256, ES256 or RS256) with a scope claim: read for GET and HEAD, dispatch for POST",
        ],
        "cookie": [
            "type": "apiKey", "in": "cookie", "name": .string(AccessGate.cookieName),
            "description": "The token in a cookie; counts only for GET of the event streams (/events, /viewmodels/events, /viewmodels/{name}/events)",
        ],
        "accessToken": [
            "type": "apiKey", "in": "query", "name": .string(AccessGate.queryName),
            "description": "The token in the query (percent-encoded); counts only for GET of the event streams (/events, /viewmodels/events, /viewmodels/{name}/events)",
        ],
    ]

    /// `paths` with the `401` and `403` answers on every operation but `GET /healthz`, which
    /// needs no token (`security: []`); the event streams also accept the cookie and the query.
    func secured(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        Self.changingOperations(of: paths) { path, method, members, responses in
            if AccessGate.isOpen(path: path) || path == InspectorAssets.filePathTemplate || path == AppAssets.filePathTemplate {
                members["security"] = []
                return
            }
            var unauthorized = problem("No token, or one that is not valid (WWW-Authenticate says why)")
            if case .object(var fields) = unauthorized {
                fields["headers"] = ["WWW-Authenticate": ["schema": ["type": "string"]]]
                unauthorized = .object(fields)
            }
            responses["401"] = unauthorized
            if path != AccessGate.accessPath {
                responses["403"] = problem("The token does not grant the scope this operation needs")
            }
            // The gate decides, on the path as written here: `{name}` stands for a name.
            if method == "get", AccessGate.acceptsCookieAndQuery(Request(method: .GET, path: path)) {
                members["security"] = [["bearer": []], ["cookie": []], ["accessToken": []]]
            }
        }
    }

    /// `paths` with the `421` a server without tokens gives a `Host` it does not answer
    /// (``HostCheck``), on every operation.
    func misdirectable(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        Self.changingOperations(of: paths) { _, _, _, responses in
            responses["421"] = problem("Without access tokens: a Host this server does not answer (allowedHosts; DNS rebinding)")
        }
    }

    /// `paths` with the answers any request may get before routing, on every operation that has
    /// none of its own: `503` at the connection limit and while the server stops (`Retry-After:
    /// 1`), `400` for a path or query that is not UTF-8, `414` for a query too large for the
    /// connection's memory, and, on methods that change state, `403`
    /// for a browser's request from another origin (cross-site request forgery).
    func refusableWhenBusy(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        Self.changingOperations(of: paths) { _, method, _, responses in
            if responses["503"] == nil {
                responses["503"] = problem("At the connection limit, or stopping: retry after Retry-After")
            }
            if responses["400"] == nil {
                responses["400"] = problem("A path or query that is not UTF-8 once percent-decoded")
            }
            if responses["414"] == nil {
                responses["414"] = problem("A query too large for the connection's memory: its length plus 64 bytes per parameter over half of connectionMemoryBytes")
            }
            if !["get", "head", "options"].contains(method), responses["403"] == nil {
                responses["403"] = problem("Sent by a browser from another origin that corsAllowedOrigins does not list (cross-site request forgery)")
            }
        }
    }

    /// `paths` after `change` has seen every operation: its path, its method, its members and
    /// its responses (written back as its `responses` member).
    static func changingOperations(
        of paths: [String: JSONValue],
        _ change: (_ path: String, _ method: String, _ members: inout [String: JSONValue], _ responses: inout [String: JSONValue]) -> Void
    ) -> [String: JSONValue] {
        var changed = paths
        for (path, item) in paths {
            guard case .object(var operations) = item else { continue }
            for (method, operation) in operations {
                guard case .object(var members) = operation, case .object(var responses)? = members["responses"] else { continue }
                change(path, method, &members, &responses)
                members["responses"] = .object(responses)
                operations[method] = .object(members)
            }
            changed[path] = .object(operations)
        }
        return changed
    }
}
