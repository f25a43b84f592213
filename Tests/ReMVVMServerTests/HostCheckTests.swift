import HTTPTestSupport
import MicroHTTP
@testable import ReMVVMServer
import Testing

/// Without access tokens, a server answers only requests naming it by an address, `localhost` or
/// a name under `.localhost`, unless `allowedHosts` says otherwise (docs/http-api.md, "Access
/// control and CORS"; docs/security.md): a page whose DNS name was rebound to
/// 127.0.0.1 gets `421`, and nothing is dispatched.
@Suite struct HostCheckTests {
    private func send(_ live: LiveServer, _ method: String, _ path: String, host: String, headers: [(String, String)] = []) throws -> TestHTTPResponse {
        let body = method == "POST" ? Array(#"{"type":"increase"}"#.utf8) : []
        let type = method == "POST" ? [("Content-Type", "application/json")] : []
        return try live.send(method: method, path: path, headers: [("Host", host)] + type + headers, body: body)
    }

    @Test func anOpenServerAnswersAddressesAndLocalhostOnly() throws {
        let live = try LiveServer()
        for host in ["rebound.example:\(live.port)", "rebound.example", "127.0.0.1.rebound.example", "localhost.example", "my_service"] {
            let state = try send(live, "GET", "/state", host: host)
            #expect(state.status == 421, "\(host)")
            #expect(state.problem?.type == "urn:remvvm:problem:misdirected-request", "\(host)")
            #expect(try send(live, "POST", "/actions", host: host).status == 421, "\(host)")
            #expect(try send(live, "GET", "/events", host: host).status == 421, "\(host): no stream either")
        }
        #expect(live.store.version == 0, "nothing was dispatched")
        for host in ["localhost:\(live.port)", "LOCALHOST", "127.0.0.1:\(live.port)", "127.0.0.2", "[::1]:\(live.port)", "app.localhost:3000", "localhost.:\(live.port)",
                     "10.0.0.1:8080", "[::ffff:7f00:1]", "[0:0:0:0:0:0:0:1]"] {
            #expect(try send(live, "GET", "/state", host: host).status == 200, "\(host)")
        }
        let metrics = try live.get("/metrics").bodyString
        #expect(metrics.contains(#"http_requests_total{method="GET",route="/state",code="421"} 5"#), "421s are counted under the route")
    }

    @Test func withTokensTheNameIsNotChecked() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let answer = try send(live, "GET", "/state", host: "rebound.example", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        #expect(answer.status == 200)
        #expect(try send(live, "GET", "/state", host: "rebound.example").status == 401, "the token decides")
    }

    /// Listed names are answered besides the automatic choice, which stays (from a review: a
    /// proxy's name listed made the image's HEALTHCHECK on 127.0.0.1 get 421, with advice to
    /// "name the server by its address").
    @Test func listedNamesAddToTheAutomaticChoice() throws {
        let live = try LiveServer(allowedHosts: ["remvvm.internal.", "[0:0:0:0:0:0:0:1]", "my_service"])
        #expect(try send(live, "GET", "/state", host: "REMVVM.internal:8080").status == 200)
        #expect(try send(live, "GET", "/state", host: "remvvm.internal.").status == 200)
        #expect(try send(live, "GET", "/state", host: "[::1]:8080").status == 200, "IPv6 compared in its canonical form")
        #expect(try send(live, "GET", "/state", host: "my_service:8080").status == 200)
        for host in ["localhost", "127.0.0.1:8080", "app.localhost"] {
            #expect(try send(live, "GET", "/healthz", host: host).status == 200, "\(host)")
        }
        let refused = try send(live, "GET", "/state", host: "rebound.example")
        #expect(refused.status == 421)
        #expect(refused.problem?.detail.contains("remvvm.internal") == false, "the listed names are not told to the page asking")
        let any = try LiveServer(allowedHosts: ["*"])
        #expect(try send(any, "GET", "/state", host: "rebound.example").status == 200)
    }

    @Test func theChoiceAndTheNamesAsCompared() {
        #expect(HostCheck(allowedHosts: nil) == .addressesAndLocalhost)
        #expect(HostCheck(allowedHosts: ["a", "*"]) == .any)
        #expect(HostCheck.normalized("Example.COM.") == "example.com")
        #expect(HostCheck.normalized("[0:0:0:0:0:0:0:1]") == "[::1]")
        #expect(HostCheck.name(ofHostField: "[::1]:8080") == "[::1]")
        #expect(HostCheck.name(ofHostField: "example.com:80") == "example.com")
        #expect(HostCheck.name(ofHostField: " localhost") == "localhost")
        #expect(HostCheck.addressesAndLocalhost.accepts(host: nil), "HTTP/1.0 without Host")
        #expect(!HostCheck.addressesAndLocalhost.accepts(host: ""))
        #expect(HostCheck.isValidEntry("my_service") && !HostCheck.isValidEntry("a:80") && !HostCheck.isValidEntry("http://a"))
    }
}
