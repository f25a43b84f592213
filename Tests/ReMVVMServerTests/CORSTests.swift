import HTTPTestSupport
import Journal
@testable import ReMVVMServer
import Testing

/// CORS (docs/http-api.md, "Access control and CORS"): listed origins get their origin echoed
/// with credentials on every answer, errors and streams included; preflights get what may be
/// sent; other origins get nothing a browser would let the page read.
@Suite struct CORSTests {
    private static let app = "https://app.example.com"

    private func live(_ origins: [String], transport: Transport = .live, journal: (any JournalStorage)? = nil) throws -> LiveServer {
        try LiveServer(transport: transport, journal: journal, corsAllowedOrigins: origins)
    }

    @Test(arguments: Transport.allCases)
    func aListedOriginIsEchoedWithCredentialsOnAnswersAndErrors(transport: Transport) throws {
        let server = try live([Self.app, "http://localhost:3000"], transport: transport)
        for path in ["/state", "/nowhere"] {
            let response = try server.get(path, headers: [("Origin", Self.app)])
            #expect(response.headers["Access-Control-Allow-Origin"] == Self.app, "\(path)")
            #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
            #expect(response.headers["Vary"] == "Origin")
            #expect(response.headers["Access-Control-Expose-Headers"]?.contains("ETag") == true)
            #expect(response.headers["Access-Control-Expose-Headers"]?.contains("Idempotent-Replayed") == true)
            #expect(response.headers["Access-Control-Expose-Headers"]?.contains("ReMVVM-Replay") == true)
        }
        #expect(try server.get("/state", headers: [("Origin", "http://localhost:3000")]).headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
    }

    @Test(arguments: Transport.allCases)
    func anUnlistedOriginGetsNoCORSHeaders(transport: Transport) throws {
        let server = try live([Self.app], transport: transport)
        for origin in ["https://evil.example.com", "https://app.example.com.evil.com", "null", "http://app.example.com"] {
            let response = try server.get("/state", headers: [("Origin", origin)])
            #expect(response.status == 200)
            #expect(response.headers["Access-Control-Allow-Origin"] == nil, "\(origin)")
            #expect(response.headers["Access-Control-Allow-Credentials"] == nil)
            #expect(response.headers["Vary"] == "Origin", "caches keep answers by origin apart")
        }
    }

    @Test(arguments: Transport.allCases)
    func aPreflightFromAListedOriginSaysWhatMayBeSent(transport: Transport) throws {
        let server = try live([Self.app], transport: transport)
        let response = try server.send(method: "OPTIONS", path: "/actions", headers: [
            ("Origin", Self.app), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization, content-type, idempotency-key"),
        ])
        #expect(response.status == 204)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(response.headers["Access-Control-Allow-Methods"] == "GET, HEAD, POST, PUT, DELETE, OPTIONS")
        let allowed = response.headers["Access-Control-Allow-Headers"] ?? ""
        for header in ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID"] {
            #expect(allowed.contains(header), "\(header)")
        }
        #expect(response.headers["Access-Control-Max-Age"] == "600")
        #expect(server.store.version == 0, "a preflight dispatches nothing")
    }

    @Test(arguments: Transport.allCases)
    func aPreflightFromAnUnlistedOriginIs403WithoutCORSHeaders(transport: Transport) throws {
        let server = try live([Self.app], transport: transport)
        let response = try server.send(method: "OPTIONS", path: "/actions", headers: [
            ("Origin", "https://evil.example.com"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(response.status == 403)
        #expect(response.problem?.type == "urn:remvvm:problem:cors-origin-not-allowed")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test(arguments: Transport.allCases)
    func aStarLetsAnyOriginReadWithoutCredentials(transport: Transport) throws {
        let server = try live(["*"], transport: transport)
        let response = try server.get("/state", headers: [("Origin", "https://anyone.example")])
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Credentials"] == nil, "never credentials with *")
        let preflight = try server.send(method: "OPTIONS", path: "/actions", headers: [
            ("Origin", "https://anyone.example"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
        #expect(preflight.headers["Access-Control-Allow-Credentials"] == nil)
    }

    @Test(arguments: Transport.allCases)
    func withCORSOffThereAreNoCORSHeadersAndOPTIONSIsNotARoute(transport: Transport) throws {
        let server = try live([], transport: transport)
        let response = try server.get("/state", headers: [("Origin", Self.app)])
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Vary"] == nil)
        let preflight = try server.send(method: "OPTIONS", path: "/actions", headers: [
            ("Origin", Self.app), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(preflight.status == 405)
    }

    /// Refusals made before routing (here a body over the limit) are the server's own answers:
    /// a listed origin gets its headers, so the page can read the 413 instead of a network error.
    @Test func aRefusalBeforeRoutingCarriesTheCORSHeaders() throws {
        let server = try LiveServer(maxBodyBytes: 64, corsAllowedOrigins: [Self.app])
        let body = String(repeating: " ", count: 200) + #"{"type":"increase"}"#
        let listed = try server.post(body, headers: [("Origin", Self.app)])
        #expect(listed.status == 413)
        #expect(listed.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(listed.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(listed.headers["Vary"] == "Origin")
        let other = try server.post(body, headers: [("Origin", "https://evil.example.com")])
        #expect(other.status == 413)
        #expect(other.headers["Access-Control-Allow-Origin"] == nil)
        #expect(other.headers["Vary"] == "Origin")
    }

    @Test func anAnswerThatWaitsForTheJournalCarriesTheCORSHeaders() throws {
        let server = try live([Self.app], journal: MemoryJournalStorage())
        let response = try server.send(
            method: "POST", path: "/actions",
            headers: [("Origin", Self.app), ("Content-Type", "application/json")],
            body: Array(#"{"type":"increase"}"#.utf8)
        )
        #expect(response.bodyString == #"{"version":1}"#)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
    }

    @Test func anEventStreamToAListedOriginCarriesTheCORSHeaders() throws {
        let server = try live([Self.app])
        let stream = try SSEClient(port: server.port, path: "/events", headers: [("Accept", "text/event-stream"), ("Origin", Self.app)])
        defer { stream.close() }
        #expect(stream.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(stream.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 0)
    }

    @Test func originsAreCheckedWhenConfigured() throws {
        for valid in [["https://app.example.com"], ["http://localhost:3000", "https://[::1]:8443"], ["*"], [], ["HTTPS://App.Example.com"]] {
            #expect(throws: Never.self, "\(valid)") { _ = try CORSPolicy(allowedOrigins: valid) }
        }
        for invalid in [["https://app.example.com/"], ["app.example.com"], ["ftp://x.example"], ["*", "https://a.example"],
                        ["https://a.example/path"], ["https://a.example:99999"], ["https://"]] {
            #expect(throws: ServiceConfigurationError.self, "\(invalid)") { _ = try CORSPolicy(allowedOrigins: invalid) }
        }
        var configuration = ServiceConfiguration()
        configuration.corsAllowedOrigins = ["https://app.example.com/"]
        #expect(throws: ServiceConfigurationError.self) { try configuration.validate() }
    }
}
