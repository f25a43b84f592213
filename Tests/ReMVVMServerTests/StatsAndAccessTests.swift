import AccessControl
import Foundation
import HTTPTestSupport
import JSONPatch
import Testing

/// `GET /stats` (the health figures the inspector charts) and `GET /access` (what the caller's
/// token allows), over real sockets (docs/http-api.md, "Inspector").
@Suite struct StatsAndAccessTests {
    private struct Access: Decodable, Equatable {
        let accessControl: Bool
        let scopes: [String]
    }

    /// The body of `GET /stats`, read by member name: a member renamed or missing fails the test.
    private func stats(_ live: LiveServer) throws -> JSON {
        let response = try live.get("/stats").expect(status: 200, contentType: "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        return try JSON(parsing: response.body)
    }

    /// A member's value if it is a JSON number.
    private func number(_ member: JSON?) -> Double? {
        guard case .number(let text)? = member else { return nil }
        return Double(text)
    }

    /// A member's value if it is a JSON string.
    private func string(_ member: JSON?) -> String? {
        guard case .string(let text)? = member else { return nil }
        return text
    }

    @Test func statsCountVersionsAndSubscribersOnTheServersClock() throws {
        let live = try LiveServer()
        let before = try stats(live)
        #expect(before["version"] == 0)
        #expect(before["subscribers"] == ["events": 0, "viewModels": 0])
        for _ in 0..<3 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        let events = try live.subscribe()
        defer { events.close() }
        let viewModels = try SSEClient(port: live.port, path: "/viewmodels/events?name=counter")
        defer { viewModels.close() }
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(10)) { $0 == 1 })
        #expect(live.server.service.waitForViewModelSubscribers(timeout: .seconds(10)) { $0 == 1 })
        let after = try stats(live)
        #expect(after["version"] == 3)
        #expect(after["subscribers"] == ["events": 1, "viewModels": 1])
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let time = try #require(string(after["time"]))
        #expect(abs(try format.parse(time).timeIntervalSinceNow) < 60, "the server's clock, with milliseconds: \(time)")
        let process = try #require(after["process"])
        #expect(try #require(number(process["residentMemoryBytes"])) > 0)
        #expect(try #require(number(process["openDescriptors"])) > 0)
        #expect(try #require(number(process["cpuSeconds"])) >= 0)
        #expect(try Date.ISO8601FormatStyle().parse(#require(string(process["startedAt"]))) <= Date())
    }

    @Test func statsWorkWithMetricsOff() throws {
        let live = try LiveServer(metricsEnabled: false)
        #expect(try live.get("/metrics").status == 404)
        #expect(try stats(live)["version"] == 0)
    }

    @Test func withoutTokensAccessGrantsEverything() throws {
        let live = try LiveServer()
        let response = try live.get("/access")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-store")
        let access = try JSONDecoder().decode(Access.self, from: Data(response.body))
        #expect(access == Access(accessControl: false, scopes: ["read", "dispatch", "manage"]))
    }

    /// The names a response's `Vary` fields list, however they are split over fields.
    private func varyNames(_ response: TestHTTPResponse) -> [String] {
        response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `GET /access` answers with `Vary: Authorization` (docs/http-api.md, "`GET /access`"); with
    /// CORS on, the `Origin` every answer varies by is added to it, listed or not, with or
    /// without a token.
    @Test func accessVariesByAuthorizationAndWithCORSByOriginToo() throws {
        let open = try LiveServer()
        #expect(try open.get("/access").headers.values(for: "Vary") == ["Authorization"])
        let secured = try LiveServer(accessControl: try AccessTokens.authorizer())
        let withToken = try secured.get("/access", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        #expect(withToken.status == 200)
        #expect(withToken.headers.values(for: "Vary") == ["Authorization"])

        let app = "https://app.example.com"
        let cors = try LiveServer(corsAllowedOrigins: [app])
        for origin in [app, "https://other.example.com"] {
            let response = try cors.get("/access", headers: [("Origin", origin)])
            #expect(response.status == 200, "\(origin)")
            #expect(varyNames(response).sorted() == ["Authorization", "Origin"], "\(origin): \(response.headers.values(for: "Vary"))")
        }
        #expect(varyNames(try cors.get("/access")).sorted() == ["Authorization", "Origin"])
    }

    @Test(arguments: [
        (AccessTokens.reader, ["read"]),
        (AccessTokens.dispatcher, ["dispatch"]),
        (AccessTokens.admin, ["read", "dispatch"]),
        (AccessTokens.jwt(scope: "dispatch"), ["dispatch"]),
        (AccessTokens.jwt(scope: "read dispatch"), ["read", "dispatch"]),
    ])
    func anyValidTokenLearnsItsScopes(token: String, scopes: [String]) throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let response = try live.get("/access", headers: [("Authorization", "Bearer \(token)")])
        #expect(response.status == 200)
        let access = try JSONDecoder().decode(Access.self, from: Data(response.body))
        #expect(access == Access(accessControl: true, scopes: scopes))
    }

    @Test func accessRefusesWhatDoesNotAuthenticate() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let none = try live.get("/access")
        #expect(none.status == 401)
        #expect(none.headers["WWW-Authenticate"] == #"Bearer realm="remvvm""#)
        for token in [AccessTokens.unknown, AccessTokens.expiredJWT] {
            let refused = try live.get("/access", headers: [("Authorization", "Bearer \(token)")])
            #expect(refused.status == 401)
            #expect(refused.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
            #expect(refused.problem?.type == "urn:remvvm:problem:unauthorized")
        }
        // The header only: a cookie or a query parameter does not authenticate here.
        #expect(try live.get("/access", headers: [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]).status == 401)
        #expect(try live.get("/access?access_token=\(AccessTokens.reader)").status == 401)
        // Other methods follow the usual rules: dispatch scope, then 405.
        #expect(try live.send(method: "POST", path: "/access", headers: [("Authorization", "Bearer \(AccessTokens.reader)")]).status == 403)
        #expect(try live.send(method: "POST", path: "/access", headers: [("Authorization", "Bearer \(AccessTokens.dispatcher)")]).status == 405)
    }

    @Test func theDocumentDescribesTheInspectorRoutes() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let response = try live.get("/openapi.json", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: [String: [String: Any]]])
        #expect(paths["/inspector"]?["get"]?["security"] as? [Any] != nil && (paths["/inspector"]?["get"]?["security"] as? [Any])?.isEmpty == true)
        #expect((paths["/inspector/{file}"]?["get"]?["security"] as? [Any])?.isEmpty == true)
        let fileParameter = (paths["/inspector/{file}"]?["get"]?["parameters"] as? [[String: Any]])?.first
        let files = (fileParameter?["schema"] as? [String: Any])?["enum"] as? [String] ?? []
        #expect(files.contains("main.js") && files.contains("inspector.css"))
        let accessResponses = try #require(paths["/access"]?["get"]?["responses"] as? [String: Any])
        #expect(accessResponses["401"] != nil && accessResponses["403"] == nil)
        let statsResponses = try #require(paths["/stats"]?["get"]?["responses"] as? [String: Any])
        #expect(statsResponses["401"] != nil && statsResponses["403"] != nil)
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        #expect(schemas["Stats"] != nil && schemas["Access"] != nil && schemas["Action"] != nil)
    }
}
