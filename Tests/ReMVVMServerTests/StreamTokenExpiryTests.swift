import AccessControl
import HTTPTestSupport
import Testing

/// An event stream ends when the JWT it was opened with expires (docs/http-api.md, "Access
/// control and CORS"): from a review, a stream opened with a token about to expire went on
/// sending every change after the same token got 401 everywhere else.
@Suite struct StreamTokenExpiryTests {
    /// Static tokens and HS256 JWTs verified without leeway.
    private func server() throws -> LiveServer {
        try LiveServer(accessControl: BearerAuthorizer(
            staticTokens: try StaticTokens(environment: AccessTokens.environment),
            jwt: try JWTVerifier(keys: [try JWTKey.hs256(secret: AccessTokens.secret)], leeway: .zero)
        ))
    }

    @Test(arguments: ["/events", "/viewmodels/counter/events"])
    func aStreamEndsWhenItsJWTExpires(path: String) throws {
        let live = try server()
        let token = AccessTokens.jwt(scope: "read dispatch", expiresIn: 2)
        let started = ContinuousClock.now
        let client = try SSEClient(port: live.port, path: "\(path)?access_token=\(token)", headers: [("Accept", "text/event-stream")])
        #expect(client.status == 200)
        #expect(try client.nextEvent(timeout: .seconds(5)) != nil, "the first event")
        // Bounded: the stream must end (nil) within the token's life plus a margin, not time out.
        while try client.nextEvent(timeout: .seconds(10)) != nil {}
        let lasted = ContinuousClock.now - started
        #expect(lasted >= .milliseconds(500) && lasted < .seconds(8), "ended at the token's exp, after \(lasted)")
        let again = try SSEClient(port: live.port, path: "\(path)?access_token=\(token)", headers: [("Accept", "text/event-stream")])
        #expect(again.status == 401, "its reconnect is refused")
    }

    @Test func aStreamOpenedWithAStaticTokenDoesNotEnd() throws {
        let live = try server()
        let client = try SSEClient(port: live.port, path: "/events?access_token=\(AccessTokens.reader)", headers: [("Accept", "text/event-stream")])
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 0)
        #expect(try live.post(#"{"type":"increase"}"#, headers: [("Authorization", "Bearer \(AccessTokens.admin)")]).status == 200)
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 1)
    }
}
