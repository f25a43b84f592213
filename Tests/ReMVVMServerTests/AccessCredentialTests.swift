import AccessControl
import HTTPTestSupport
import Testing

/// Where a token may travel (docs/http-api.md, "Details that clients will rely on"): the
/// `Authorization` field everywhere; on `GET /events` also the `remvvmAuthorization` cookie and
/// `?access_token=`, which count nowhere else; credentials that disagree are refused; CORS
/// preflights need none, and refusals to a listed origin carry the CORS headers.
@Suite struct AccessCredentialTests {
    private static let app = "https://app.example.com"

    private func live(cors: [String] = []) throws -> LiveServer {
        try LiveServer(corsAllowedOrigins: cors, accessControl: try AccessTokens.authorizer())
    }

    /// The status of `GET /events` with `headers` (and the first event's version when served).
    private func openEvents(_ live: LiveServer, path: String = "/events", _ headers: [(String, String)]) throws -> (status: Int, challenge: String?, first: UInt64?) {
        let stream = try SSEClient(port: live.port, path: path, headers: [("Accept", "text/event-stream")] + headers)
        defer { stream.close() }
        let first = stream.status == 200 ? try stream.nextEvent(timeout: .seconds(5))?.version : nil
        return (stream.status, stream.headers["WWW-Authenticate"], first)
    }

    @Test func theCookieOpensAnEventStream() throws {
        let live = try live()
        let opened = try openEvents(live, [("Cookie", "theme=dark; remvvmAuthorization=\(AccessTokens.reader); lang=en")])
        #expect(opened.status == 200)
        #expect(opened.first == 0)
        let quoted = try openEvents(live, [("Cookie", "remvvmAuthorization=\"\(AccessTokens.jwt(scope: "read"))\"")])
        #expect(quoted.status == 200, "a quoted cookie value (RFC 6265) holding a JWT")
    }

    @Test func theQueryParameterOpensAnEventStream() throws {
        let live = try live()
        #expect(try openEvents(live, path: "/events?access_token=\(AccessTokens.jwt(scope: "read"))", []).status == 200)
        #expect(try openEvents(live, path: "/events?lastEventId=0&access_token=\(AccessTokens.reader)", []).status == 200)
        let refused = try openEvents(live, path: "/events?access_token=\(AccessTokens.expiredJWT)", [])
        #expect(refused.status == 401)
        #expect(refused.challenge?.contains(#"error="invalid_token""#) == true)
        let dispatchOnly = try openEvents(live, path: "/events?access_token=\(AccessTokens.dispatcher)", [])
        #expect(dispatchOnly.status == 403)
    }

    @Test(arguments: ["/viewmodels/counter/events", "/viewmodels/events?name=counter"])
    func theCookieAndTheQueryOpenViewModelStreams(path: String) throws {
        let live = try live()
        let separator = path.contains("?") ? "&" : "?"
        #expect(try openEvents(live, path: path, [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]).first == 0)
        #expect(try openEvents(live, path: path + separator + "access_token=\(AccessTokens.reader)", []).first == 0)
        #expect(try openEvents(live, path: path, []).status == 401)
        #expect(try openEvents(live, path: path + separator + "access_token=\(AccessTokens.dispatcher)", []).status == 403)
    }

    @Test func aTokenWithPlusAndSlashTravelsPercentEncodedInTheQuery() throws {
        let live = try LiveServer(accessControl: BearerAuthorizer(staticTokens: try StaticTokens(environment: "a+b/c==read")))
        #expect(try openEvents(live, path: "/events?access_token=a%2Bb%2Fc%3D", []).status == 200)
        #expect(try openEvents(live, [("Authorization", "Bearer a+b/c=")]).status == 200)
    }

    @Test func theCookieAndTheQueryDoNotCountOutsideEventStreams() throws {
        let live = try live()
        let cookie = try live.send(
            method: "POST", path: "/actions",
            headers: [("Content-Type", "application/json"), ("Cookie", "remvvmAuthorization=\(AccessTokens.admin)")],
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(cookie.status == 401)
        #expect(cookie.headers["WWW-Authenticate"] == #"Bearer realm="remvvm""#)
        #expect(cookie.problem?.detail.contains("only for GET event streams") == true)
        let query = try live.send(
            method: "POST", path: "/actions?access_token=\(AccessTokens.admin)",
            headers: [("Content-Type", "application/json")], body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(query.status == 401)
        #expect(live.store.version == 0, "nothing was dispatched")
        #expect(try live.get("/state", headers: [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]).status == 401)
        #expect(try live.get("/state?access_token=\(AccessTokens.reader)").status == 401)
    }

    @Test func offEventStreamsAStaleCookieBesideTheHeaderIsIgnored() throws {
        let live = try live()
        let response = try live.get("/state", headers: [
            ("Authorization", "Bearer \(AccessTokens.reader)"), ("Cookie", "remvvmAuthorization=stale-token"),
        ])
        #expect(response.status == 200)
    }

    @Test func credentialsThatDisagreeAreRefused() throws {
        let live = try live()
        let header = ("Authorization", "Bearer \(AccessTokens.reader)")
        #expect(try openEvents(live, [header, ("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]).status == 200, "the same token twice")
        #expect(try openEvents(live, path: "/events?access_token=\(AccessTokens.reader)&access_token=\(AccessTokens.reader)", []).status == 200,
                "the same token in the query twice")
        for (path, headers) in [
            ("/events", [header, ("Cookie", "remvvmAuthorization=\(AccessTokens.admin)")]),
            ("/events", [header, ("Cookie", "remvvmAuthorization=\(AccessTokens.unknown)")]),
            ("/events?access_token=\(AccessTokens.admin)", [header]),
            ("/events?access_token=\(AccessTokens.admin)", [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)")]),
            ("/events", [("Cookie", "remvvmAuthorization=\(AccessTokens.reader)"), ("Cookie", "remvvmAuthorization=\(AccessTokens.admin)")]),
            // The last of two query parameters won before: an earlier one was ignored.
            ("/events?access_token=stale-token&access_token=\(AccessTokens.reader)", []),
            ("/events?access_token=\(AccessTokens.reader)&access_token=\(AccessTokens.admin)", []),
        ] {
            let refused = try openEvents(live, path: path, headers)
            #expect(refused.status == 401, "\(path) \(headers.map(\.1))")
            #expect(refused.challenge?.contains(#"error="invalid_token""#) == true)
        }
        let twoFields = try live.get("/state", headers: [header, header])
        #expect(twoFields.status == 400, "two Authorization fields are ambiguous, even when equal: refused before access control")
    }

    @Test func aPreflightNeedsNoToken() throws {
        let live = try live(cors: [Self.app])
        let preflight = try live.send(method: "OPTIONS", path: "/actions", headers: [
            ("Origin", Self.app), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization, content-type"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Authorization") == true)
        let plainOptions = try live.send(method: "OPTIONS", path: "/state")
        #expect(plainOptions.status == 401, "an OPTIONS that is not a preflight is an ordinary request")
    }

    @Test func refusalsToAListedOriginCarryTheCORSHeaders() throws {
        let live = try live(cors: [Self.app])
        let unauthorized = try live.get("/state", headers: [("Origin", Self.app)])
        #expect(unauthorized.status == 401)
        #expect(unauthorized.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(unauthorized.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(unauthorized.headers["Access-Control-Expose-Headers"]?.contains("WWW-Authenticate") == true)
        let forbidden = try live.send(
            method: "POST", path: "/actions",
            headers: [("Origin", Self.app), ("Authorization", "Bearer \(AccessTokens.reader)"), ("Content-Type", "application/json")],
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(forbidden.status == 403)
        #expect(forbidden.headers["Access-Control-Allow-Origin"] == Self.app)
        let other = try live.get("/state", headers: [("Origin", "https://evil.example.com")])
        #expect(other.status == 401)
        #expect(other.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func refusalsBeforeRoutingAreAnsweredWithoutAToken() throws {
        let live = try LiveServer(maxBodyBytes: 64, accessControl: try AccessTokens.authorizer())
        let tooLarge = try live.post(String(repeating: " ", count: 200) + #"{"type":"increase"}"#)
        #expect(tooLarge.status == 413, "the body limit applies first: a 413 reveals nothing and changes nothing")
        #expect(live.store.version == 0)
    }

    @Test func theOpenAPIDocumentDeclaresTheSecuritySchemes() throws {
        let live = try live()
        let text = try live.get("/openapi.json", headers: [("Authorization", "Bearer \(AccessTokens.reader)")]).bodyString
        #expect(text.contains(#""securitySchemes""#))
        #expect(text.contains(#""scheme":"bearer""#))
        #expect(text.contains(#""name":"remvvmAuthorization""#))
        #expect(text.contains(#""name":"access_token""#))
        #expect(text.contains(#""401""#) && text.contains(#""403""#))
        let open = try LiveServer().get("/openapi.json").bodyString
        #expect(!open.contains("securitySchemes"), "without tokens the document declares none")
    }
}
