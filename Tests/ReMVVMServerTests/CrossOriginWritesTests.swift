import HTTPTestSupport
@testable import ReMVVMServer
import Testing

/// State-changing requests a browser sends from another origin are refused (docs/http-api.md,
/// "Access control and CORS"): a form or a `no-cors` fetch needs no preflight, and without tokens
/// nothing else stopped it (from a review: a `POST` with `Origin: https://evil.example` and no
/// body ran `counter/increase` on a server on 127.0.0.1, even with CORS limited to another origin).
@Suite struct CrossOriginWritesTests {
    private static let evil = "https://evil.example"
    private static let app = "https://app.example.com"

    /// A command without a body, as `fetch(url, {method: "POST", mode: "no-cors"})` sends it.
    private func increase(_ live: LiveServer, _ headers: [(String, String)]) throws -> TestHTTPResponse {
        try live.send(method: "POST", path: "/viewmodels/counter/commands/increase", headers: headers)
    }

    @Test func aWriteFromAnotherOriginIsRefusedAndChangesNothing() throws {
        for origins in [[], [Self.app]] {
            let live = try LiveServer(corsAllowedOrigins: origins)
            for headers in [[("Origin", Self.evil)], [("Origin", "null")], [("Sec-Fetch-Site", "cross-site")],
                            [("Origin", Self.evil), ("Sec-Fetch-Site", "same-site")]] {
                let refused = try increase(live, headers)
                #expect(refused.status == 403, "\(origins) \(headers)")
                #expect(refused.problem?.type == "urn:remvvm:problem:cross-origin-request-refused")
                let action = try live.post(#"{"type":"increase"}"#, contentType: "text/plain", headers: headers)
                #expect(action.status == 403, "\(origins) \(headers): a text/plain POST /actions too")
            }
            #expect(live.store.version == 0)
        }
    }

    @Test func sameOriginPagesListedOriginsAndNonBrowserClientsMayWrite() throws {
        let live = try LiveServer(corsAllowedOrigins: [Self.app])
        let sameOrigin = "http://127.0.0.1:\(live.port)"
        for headers in [[], [("Origin", sameOrigin)], [("Origin", "HTTP://127.0.0.1:\(live.port)")],
                        [("Sec-Fetch-Site", "same-origin"), ("Origin", sameOrigin)], [("Sec-Fetch-Site", "none")],
                        [("Origin", Self.app)], [("Origin", Self.app), ("Sec-Fetch-Site", "cross-site")]] {
            #expect(try increase(live, headers).status == 200, "\(headers)")
        }
        #expect(live.store.version == 7)
        let any = try LiveServer(corsAllowedOrigins: ["*"])
        #expect(try increase(any, [("Origin", Self.evil), ("Sec-Fetch-Site", "cross-site")]).status == 200, "CORS * allows every origin")
    }

    @Test func readsFromAnotherOriginAreLeftToCORS() throws {
        let live = try LiveServer()
        for method in ["GET", "HEAD"] {
            #expect(try live.send(method: method, path: "/state", headers: [("Origin", Self.evil), ("Sec-Fetch-Site", "cross-site")]).status == 200)
        }
    }

    @Test func originAuthoritiesIgnoreTheSchemesDefaultPort() {
        #expect(CrossOriginWrites.authority(ofOrigin: "https://a.example:443") == "a.example")
        #expect(CrossOriginWrites.authority(ofOrigin: "http://a.example:80") == "a.example")
        #expect(CrossOriginWrites.authority(ofOrigin: "http://a.example:8080") == "a.example:8080")
        #expect(CrossOriginWrites.authority(host: "A.example:80", scheme: "http") == "a.example")
        #expect(CrossOriginWrites.authority(ofOrigin: "null") == nil)
        #expect(CORSPolicy.normalizedOrigin("https://app.example.com:443") == "https://app.example.com")
        #expect(CORSPolicy.normalizedOrigin("http://app.example.com:80") == "http://app.example.com")
        #expect(CORSPolicy.normalizedOrigin("https://app.example.com:8443") == "https://app.example.com:8443")
    }
}
