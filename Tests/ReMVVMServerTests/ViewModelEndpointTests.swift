import ExampleApp
import HTTPTestSupport
import Testing

/// `GET /viewmodels` and `GET /viewmodels/<name>`.
@Suite struct ViewModelEndpointTests {
    @Test func registeredNamesAreListed() throws {
        let live = try LiveServer()
        #expect(try live.get("/viewmodels").bodyString == #"{"viewModels":["counter","greetings"]}"#)
    }

    @Test func counterViewModelShowsTheCounterAsText() throws {
        let live = try LiveServer()
        #expect(try live.get("/viewmodels/counter").bodyString == #"{"counter":"0"}"#)
        _ = try live.post(#"[{"type":"increase"},{"type":"increase"},{"type":"increase"}]"#)
        let response = try live.get("/viewmodels/counter")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.bodyString == #"{"counter":"3"}"#)
    }

    @Test func viewModelTheFactoryDoesNotMakeInThisStateAnswers404SayingSo() throws {
        let live = try LiveServer()
        let response = try live.get("/viewmodels/greetings")
        #expect(response.status == 404)
        let problem = try #require(response.problem)
        #expect(problem.type == "urn:remvvm:problem:view-model-unavailable")
        #expect(problem.detail.contains("not available in the current state"))

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(try live.get("/viewmodels/greetings").bodyString == #"{"greetings":"Hello Ada Lovelace <3"}"#)
    }

    @Test func unknownViewModelAnswers404ListingTheKnownOnes() throws {
        let live = try LiveServer()
        let response = try live.get("/viewmodels/nope?key=1")
        #expect(response.status == 404)
        #expect(response.problem?.type == "urn:remvvm:problem:unknown-view-model")
        #expect(response.problem?.known == ["counter", "greetings"])
    }
}
