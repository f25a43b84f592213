import ExampleApp
import HTTPTestSupport
import Testing

/// `GET /state`, `GET /healthz`, unknown paths and wrong methods (docs/http-api.md), each test over a
/// socket and in process through the router.
@Suite struct StateEndpointTests {
    @Test(arguments: Transport.allCases)
    func stateIsServedAsJSONWithNullForAbsentOptionalsAndAnETag(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.get("/state").expect(status: 200, contentType: "application/json")
        #expect(response.headers["ETag"] == live.etag(0))
        #expect(response.bodyString == #"{"counter":0,"user":null}"#)

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        let after = try live.get("/state")
        #expect(after.headers["ETag"] == live.etag(1))
        #expect(after.bodyString == #"{"counter":0,"user":{"firstName":"Ada","lastName":"Lovelace"}}"#)
    }

    @Test(arguments: Transport.allCases)
    func ifNoneMatchWithTheCurrentVersionAnswers304(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        _ = try live.post(#"{"type":"increase"}"#)
        let notModified = try live.get("/state", headers: [("If-None-Match", live.etag(1))])
        #expect(notModified.status == 304)
        #expect(notModified.headers["ETag"] == live.etag(1))
        #expect(notModified.body.isEmpty)
        #expect(try live.get("/state", headers: [("If-None-Match", "W/" + live.etag(1))]).status == 304)
        #expect(try live.get("/state", headers: [("If-None-Match", "\(live.etag(0)), \(live.etag(1))")]).status == 304)
        let stale = try live.get("/state", headers: [("If-None-Match", live.etag(0))])
        #expect(stale.status == 200)
        #expect(stale.bodyString == #"{"counter":1,"user":null}"#)
    }

    /// `If-None-Match: *` matches any current tag (docs/http-api.md, "State").
    @Test(arguments: Transport.allCases)
    func ifNoneMatchStarAnswers304WithTheETagAndNoBody(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        _ = try live.post(#"{"type":"increase"}"#)
        let notModified = try live.get("/state", headers: [("If-None-Match", "*")])
        #expect(notModified.status == 304)
        #expect(notModified.headers["ETag"] == live.etag(1))
        #expect(notModified.body.isEmpty)
    }

    /// `GET /state` and `GET /healthz` are answered with `Cache-Control: no-cache`
    /// (docs/http-api.md, "State" and "Operations").
    @Test(arguments: Transport.allCases)
    func stateAndHealthAreAnsweredWithNoCache(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let state = try live.get("/state")
        #expect(state.status == 200)
        #expect(state.headers["Cache-Control"] == "no-cache")
        let health = try live.get("/healthz")
        #expect(health.status == 200)
        #expect(health.headers["Cache-Control"] == "no-cache")
    }

    @Test(arguments: Transport.allCases)
    func aTagFromAnEarlierProcessNeverMatchesAStateOfALaterOne(transport: Transport) throws {
        // The reliability review: 5 increases, restart, 5 decreases, and the old tag matched.
        let before = try LiveServer(transport: transport)
        _ = try before.post(Array(repeating: #"{"type":"increase"}"#, count: 5).joined(separator: ",").wrappedInBrackets)
        let cached = try #require(try before.get("/state").headers["ETag"])
        let after = try LiveServer(transport: transport)
        _ = try after.post(Array(repeating: #"{"type":"decrease"}"#, count: 5).joined(separator: ",").wrappedInBrackets)
        #expect(after.store.version == before.store.version)
        let response = try after.get("/state", headers: [("If-None-Match", cached)])
        #expect(response.status == 200)
        #expect(response.bodyString == #"{"counter":-5,"user":null}"#)
        // The tag is the version, then the instance: "5-<8 hex digits>".
        #expect(cached.wholeMatch(of: /"5-[0-9a-f]{8}"/) != nil)
    }

    @Test(arguments: Transport.allCases)
    func healthzAnswersOkWithTheVersion(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        _ = try live.post(#"[{"type":"increase"},{"type":"increase"}]"#)
        let response = try live.get("/healthz")
        #expect(response.status == 200)
        #expect(response.bodyString == #"{"status":"ok","version":2}"#)
    }

    @Test(arguments: Transport.allCases)
    func unknownPathAnswers404Problem(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.get("/nowhere").expect(status: 404, contentType: "application/problem+json")
        let problem = try #require(response.problem)
        #expect(problem == ProblemBody(
            type: "about:blank", title: "Not Found", status: 404,
            detail: "no resource at /nowhere; see GET /healthz, /state, /viewmodels, /events and POST /actions"
        ))
    }

    @Test func aPathWithAnEncodedNULIsNotTheRouteBeforeIt() throws {
        let live = try LiveServer()
        for path in ["/state%00foo", "/healthz%00/x", "/viewmodels/counter%00zzz", "/actions%00?since=1"] {
            let response = try live.get(path)
            #expect(response.status == 404, "\(path)")
            #expect(response.bodyString.contains(#"\u0000"#), "the detail names the path, its NUL escaped: \(response.bodyString)")
        }
    }

    @Test(arguments: Transport.allCases)
    func wrongMethodAnswers405WithAllow(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let onState = try live.send(method: "POST", path: "/state", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(onState.status == 405)
        #expect(onState.headers["Allow"] == "GET, HEAD")
        #expect(onState.problem?.status == 405)
        let onActions = try live.send(method: "DELETE", path: "/actions")
        #expect(onActions.status == 405)
        #expect(onActions.headers["Allow"] == "GET, HEAD, POST")
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func problemBodiesListMembersInRFCOrder(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let body = try live.get("/nowhere").bodyString
        #expect(body.hasPrefix(#"{"type":"about:blank","title":"Not Found","status":404,"detail":"#))
    }
}

private extension String {
    var wrappedInBrackets: String { "[" + self + "]" }
}
