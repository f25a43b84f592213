import AccessControl
import HTTPTestSupport
import Testing

/// Access control on every route, live (docs/http-api.md, "Access control and CORS"): `read` for
/// `GET` / `HEAD`, `dispatch` for `POST`, `/healthz` open; `401` with the RFC 6750 challenge for
/// no token or one that does not authenticate, `403` `insufficient_scope` for the wrong scope.
@Suite struct AccessRouteTests {
    struct Route: Sendable, CustomTestStringConvertible {
        let method: String
        let path: String
        /// The scope it needs; nil: open.
        let scope: Scope?
        /// Its status when the request may be served.
        var served = 200

        var testDescription: String { "\(method) \(path)" }
        /// An event stream: granted, it does not end.
        var isStream: Bool { method == "GET" && (path.hasSuffix("/events") || path.contains("/events?")) }
    }

    /// The routes that need `scope` (nil: open) and are served with 200, as `METHOD path`.
    private static func routes(needing scope: Scope?, _ requests: String...) -> [Route] {
        requests.map { request in
            let method = request.prefix { $0 != " " }
            return Route(method: String(method), path: String(request.dropFirst(method.count + 1)), scope: scope)
        }
    }

    static let routes: [Route] = routes(
        needing: .read,
        "GET /state", "HEAD /state", "GET /viewmodels", "GET /viewmodels/counter", "GET /actions", "GET /events",
        "GET /viewmodels/counter/events", "GET /viewmodels/events?name=counter", "GET /metrics", "GET /openapi.json",
        "GET /stats"
    ) + routes(needing: .dispatch, "POST /actions", "POST /viewmodels/counter/commands/increase") + [
        Route(method: "GET", path: "/nowhere", scope: .read, served: 404),
        Route(method: "DELETE", path: "/state", scope: .dispatch, served: 405),
    ] + routes(needing: nil, "GET /healthz", "HEAD /healthz", "GET /inspector", "GET /inspector/main.js")

    /// A credential as a client sends it, and the scopes it grants (nil: it does not authenticate).
    struct Credential: Sendable {
        let name: String
        let authorization: String?
        let grants: ScopeSet?

        static var all: [Credential] {
            [
                Credential(name: "no token", authorization: nil, grants: nil),
                Credential(name: "static read", authorization: "Bearer \(AccessTokens.reader)", grants: .read),
                Credential(name: "static dispatch", authorization: "Bearer \(AccessTokens.dispatcher)", grants: .dispatch),
                Credential(name: "static read+dispatch", authorization: "Bearer \(AccessTokens.admin)", grants: [.read, .dispatch]),
                Credential(name: "JWT read", authorization: "Bearer \(AccessTokens.jwt(scope: "read"))", grants: .read),
                Credential(name: "JWT dispatch", authorization: "Bearer \(AccessTokens.jwt(scope: "dispatch"))", grants: .dispatch),
                Credential(name: "unknown token", authorization: "Bearer \(AccessTokens.unknown)", grants: nil),
                Credential(name: "expired JWT", authorization: "Bearer \(AccessTokens.expiredJWT)", grants: nil),
                Credential(name: "JWT of another secret", authorization: "Bearer \(AccessTokens.jwt(scope: "read", secret: String(repeating: "x", count: 40)))", grants: nil),
                Credential(name: "not Bearer", authorization: "Basic cmVhZGVyOg==", grants: nil),
            ]
        }
    }

    /// What a client sees: status, challenge and problem type.
    private struct Seen {
        let status: Int
        let challenge: String?
        let problemType: String?
    }

    private func request(_ route: Route, _ credential: Credential, on live: LiveServer) throws -> Seen {
        var headers = credential.authorization.map { [("Authorization", $0)] } ?? []
        if route.isStream, credential.grants?.grants(.read) == true {
            // A granted stream does not end: read its head only.
            headers.append(("Accept", "text/event-stream"))
            let stream = try SSEClient(port: live.port, path: route.path, headers: headers)
            defer { stream.close() }
            return Seen(status: stream.status, challenge: stream.headers["WWW-Authenticate"], problemType: nil)
        }
        var body: [UInt8] = []
        if route.method == "POST" {
            headers.append(("Content-Type", "application/json"))
            body = Array(#"{"type":"increase"}"#.utf8)
        }
        let response = try live.send(method: route.method, path: route.path, headers: headers, body: body)
        return Seen(status: response.status, challenge: response.headers["WWW-Authenticate"], problemType: response.problem?.type)
    }

    @Test(arguments: routes)
    func everyRouteAnswersEachCredentialAsTheContractSays(route: Route) throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        for credential in Credential.all {
            let seen = try request(route, credential, on: live)
            let context = "\(route.testDescription) with \(credential.name)"
            guard let scope = route.scope else {
                #expect(seen.status == route.served, "\(context): open")
                #expect(seen.challenge == nil, "\(context)")
                continue
            }
            let problems = route.method != "HEAD"
            switch credential.grants {
            case nil where credential.authorization == nil:
                #expect(seen.status == 401, "\(context)")
                #expect(seen.challenge == #"Bearer realm="remvvm""#, "\(context)")
                if problems { #expect(seen.problemType == "urn:remvvm:problem:unauthorized", "\(context)") }
            case nil:
                #expect(seen.status == 401, "\(context)")
                #expect(seen.challenge?.hasPrefix(#"Bearer realm="remvvm", error="invalid_token", error_description=""#) == true, "\(context): \(seen.challenge ?? "-")")
                if problems { #expect(seen.problemType == "urn:remvvm:problem:unauthorized", "\(context)") }
            case let grants? where grants.grants(scope):
                #expect(seen.status == route.served, "\(context)")
                #expect(seen.challenge == nil, "\(context)")
            case _?:
                #expect(seen.status == 403, "\(context)")
                #expect(seen.challenge == #"Bearer realm="remvvm", error="insufficient_scope", scope="\#(scope)""#, "\(context)")
                if problems { #expect(seen.problemType == "urn:remvvm:problem:insufficient-scope", "\(context)") }
            }
        }
    }

    @Test func onlyAuthorizedPostsChangeTheState() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let post = Route(method: "POST", path: "/actions", scope: .dispatch)
        for credential in Credential.all {
            _ = try request(post, credential, on: live)
        }
        let authorized = Credential.all.filter { $0.grants?.grants(.dispatch) == true }.count
        #expect(live.store.version == UInt64(authorized), "only the \(authorized) dispatch credentials reduced")
    }

    @Test func withoutTokensEveryRouteIsOpen() throws {
        let live = try LiveServer()
        for route in Self.routes where !route.isStream {
            let seen = try request(route, Credential.all[0], on: live)
            #expect(seen.status == route.served, "\(route.testDescription)")
            #expect(seen.challenge == nil)
        }
    }

    @Test func refusalsAreCountedUnderTheRoutePattern() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        _ = try live.get("/viewmodels/counter")
        _ = try live.get("/viewmodels/counter", headers: [("Authorization", "Bearer \(AccessTokens.dispatcher)")])
        let metrics = try live.get("/metrics", headers: [("Authorization", "Bearer \(AccessTokens.reader)")]).bodyString
        func count(code: Int) -> Substring? {
            metrics.split(separator: "\n").first {
                $0.hasPrefix("http_requests_total{") && $0.contains(#"route="/viewmodels/:name""#)
                    && $0.contains(#"method="GET""#) && $0.contains(#"code="\#(code)""#)
            }?.split(separator: " ").last
        }
        #expect(count(code: 401) == "1")
        #expect(count(code: 403) == "1")
    }
}
