import ExampleApp
import HTTPTestSupport
import Testing

/// `GET /state`, `GET /healthz`, unknown paths and wrong methods.
@Suite struct StateEndpointTests {
    @Test func stateIsServedAsJSONWithNullForAbsentOptionalsAndAnETag() throws {
        let live = try LiveServer()
        let response = try live.get("/state")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["ETag"] == "\"0\"")
        #expect(response.bodyString == #"{"counter":0,"user":null}"#)

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        let after = try live.get("/state")
        #expect(after.headers["ETag"] == "\"1\"")
        #expect(after.bodyString == #"{"counter":0,"user":{"firstName":"Ada","lastName":"Lovelace"}}"#)
    }

    @Test func ifNoneMatchWithTheCurrentVersionAnswers304() throws {
        let live = try LiveServer()
        _ = try live.post(#"{"type":"increase"}"#)
        let notModified = try live.get("/state", headers: [("If-None-Match", "\"1\"")])
        #expect(notModified.status == 304)
        #expect(notModified.headers["ETag"] == "\"1\"")
        #expect(notModified.body.isEmpty)
        #expect(try live.get("/state", headers: [("If-None-Match", "W/\"1\"")]).status == 304)
        #expect(try live.get("/state", headers: [("If-None-Match", "\"0\", \"1\"")]).status == 304)
        let stale = try live.get("/state", headers: [("If-None-Match", "\"0\"")])
        #expect(stale.status == 200)
        #expect(stale.bodyString == #"{"counter":1,"user":null}"#)
    }

    @Test func healthzAnswersOkWithTheVersion() throws {
        let live = try LiveServer()
        _ = try live.post(#"[{"type":"increase"},{"type":"increase"}]"#)
        let response = try live.get("/healthz")
        #expect(response.status == 200)
        #expect(response.bodyString == #"{"status":"ok","version":2}"#)
    }

    @Test func unknownPathAnswers404Problem() throws {
        let live = try LiveServer()
        let response = try live.get("/nowhere")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let problem = try #require(response.problem)
        #expect(problem == ProblemBody(
            type: "about:blank", title: "Not Found", status: 404,
            detail: "no resource at /nowhere; see GET /healthz, /state, /viewmodels, /events and POST /actions"
        ))
    }

    @Test func wrongMethodAnswers405WithAllow() throws {
        let live = try LiveServer()
        let onState = try live.client().send(method: "POST", path: "/state", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(onState.status == 405)
        #expect(onState.headers["Allow"] == "GET, HEAD")
        #expect(onState.problem?.status == 405)
        let onActions = try live.get("/actions")
        #expect(onActions.status == 405)
        #expect(onActions.headers["Allow"] == "POST")
        #expect(live.store.version == 0)
    }

    @Test func problemBodiesListMembersInRFCOrder() throws {
        let live = try LiveServer()
        let body = try live.get("/nowhere").bodyString
        #expect(body.hasPrefix(#"{"type":"about:blank","title":"Not Found","status":404,"detail":"#))
    }
}
