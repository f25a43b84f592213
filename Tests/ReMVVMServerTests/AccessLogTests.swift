import AccessControl
import ExampleApp
import HTTPTestSupport
import Logging
import MicroHTTP
import ReMVVM
@testable import ReMVVMServer
import Testing

/// What the server says about access control in its log: what is configured (never a token or a
/// key), a warning when it is open on a reachable address, and no token from any request.
@Suite struct AccessLogTests {
    /// A server on `host` with `accessControl`, logging to `log`; started.
    private func started(
        host: String, accessControl: BearerAuthorizer, corsAllowedOrigins: [String] = [], log: CapturedLog
    ) throws -> ReMVVMServer<AppState> {
        var http = HTTPServerConfiguration()
        http.host = host
        http.port = 0
        var service = ServiceConfiguration()
        service.corsAllowedOrigins = corsAllowedOrigins
        let server = try ReMVVMServer.example(http: http, service: service, accessControl: accessControl, logger: log.logger(level: .trace))
        try server.start()
        return server
    }

    /// Every message logged so far (start logs before it returns; requests before their answer).
    private func messages(_ log: CapturedLog) -> [String] {
        log.messages.snapshot
    }

    @Test func noTokenFromAnyRequestReachesTheLog() throws {
        let log = CapturedLog()
        let readJWT = AccessTokens.jwt(scope: "read")
        let live = try LiveServer(accessControl: try AccessTokens.authorizer(), logger: log.logger(level: .trace))
        let used = [AccessTokens.reader, AccessTokens.dispatcher, AccessTokens.admin, AccessTokens.unknown, readJWT, AccessTokens.expiredJWT]
        for token in used {
            _ = try live.get("/state", headers: [("Authorization", "Bearer \(token)")])
            _ = try live.send(method: "POST", path: "/actions", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                              body: Array(#"{"type":"increase"}"#.utf8))
            _ = try live.get("/events?access_token=\(token)x")
            _ = try live.get("/events", headers: [("Cookie", "remvvmAuthorization=\(token)x")])
            _ = try live.send(method: "POST", path: "/actions?access_token=\(token)", headers: [("Cookie", "remvvmAuthorization=\(token)")])
        }
        let stream = try SSEClient(port: live.port, path: "/events?access_token=\(readJWT)")
        #expect(try stream.nextEvent(timeout: .seconds(5)) != nil)
        stream.close()
        live.server.shutdown()
        let logged = messages(log)
        for token in used + [AccessTokens.secret] {
            #expect(!logged.contains { $0.contains(token) }, "a log line holds a token")
        }
    }

    @Test func startSaysWhatIsConfiguredWithoutSecrets() throws {
        let log = CapturedLog()
        let server = try started(host: "0.0.0.0", accessControl: try AccessTokens.authorizer(), log: log)
        server.shutdown()
        let logged = messages(log)
        #expect(logged.contains { $0.hasPrefix("info access control: BearerAuthorizer(3 static tokens; JWTVerifier(algorithms: HS256") })
        #expect(!logged.contains { $0.hasPrefix("warning") && $0.contains("no access token") })
        for secret in [AccessTokens.reader, AccessTokens.dispatcher, AccessTokens.admin, AccessTokens.secret] {
            #expect(!logged.contains { $0.contains(secret) })
        }
    }

    @Test func anOpenServerOnAReachableAddressWarnsAtStart() throws {
        let log = CapturedLog()
        let server = try started(host: "0.0.0.0", accessControl: BearerAuthorizer(), log: log)
        server.shutdown()
        #expect(messages(log).contains { $0.hasPrefix("warning no access token is configured and the server listens on 0.0.0.0") })
    }

    /// From a review: CORS `*` on a server without tokens lets every site's pages read and
    /// dispatch, also on loopback, and nothing said so.
    @Test func anOpenServerWithCORSForAnyOriginWarnsEvenOnLoopback() throws {
        let log = CapturedLog()
        let server = try started(host: "127.0.0.1", accessControl: BearerAuthorizer(), corsAllowedOrigins: ["*"], log: log)
        server.shutdown()
        #expect(messages(log).contains { $0.hasPrefix("warning corsAllowedOrigins is * and no access token is configured") })
        let listed = CapturedLog()
        try started(host: "127.0.0.1", accessControl: BearerAuthorizer(), corsAllowedOrigins: ["https://app.example"], log: listed).shutdown()
        #expect(!messages(listed).contains { $0.hasPrefix("warning") })
    }

    @Test func anOpenServerOnLoopbackDoesNotWarn() throws {
        let log = CapturedLog()
        let server = try started(host: "127.0.0.1", accessControl: BearerAuthorizer(), log: log)
        server.shutdown()
        #expect(!messages(log).contains { $0.contains("no access token") })
    }

    @Test func loopbackAddressesAreRecognized() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] {
            #expect(ListenHost.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "[::]", "192.168.1.10", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "example.com", ""] {
            #expect(!ListenHost.isLoopback(host), "\(host)")
        }
    }
}
