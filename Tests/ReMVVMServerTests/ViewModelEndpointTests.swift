import ExampleApp
import HTTPTestSupport
import Testing

/// `GET /viewmodels` and `GET /viewmodels/<name>` (docs/http-api.md), over a socket and in process.
@Suite struct ViewModelEndpointTests {
    @Test(arguments: Transport.allCases)
    func registeredNamesAreListedWithTheirCommands(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.get("/viewmodels").bodyString
            == #"{"commands":{"counter":["decrease","increase"],"counterInBase":["decrease","increase"],"greetings":["logout"],"login":["login"],"navigation":[]},"viewModels":["counter","counterInBase","greetings","login","navigation"]}"#)
    }

    @Test(arguments: Transport.allCases)
    func counterViewModelShowsTheCounterAsText(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.get("/viewmodels/counter").bodyString == #"{"counter":"0"}"#)
        _ = try live.post(#"[{"type":"increase"},{"type":"increase"},{"type":"increase"}]"#)
        let response = try live.get("/viewmodels/counter").expect(status: 200, contentType: "application/json")
        #expect(response.bodyString == #"{"counter":"3"}"#)
    }

    /// `GET /viewmodels/<name>` is answered with `Cache-Control: no-cache` (docs/http-api.md,
    /// "View models").
    @Test(arguments: Transport.allCases)
    func aViewModelIsAnsweredWithNoCache(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.get("/viewmodels/counter")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-cache")
    }

    @Test(arguments: Transport.allCases)
    func viewModelTheFactoryDoesNotMakeInThisStateAnswers404SayingSo(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.get("/viewmodels/greetings")
        #expect(response.status == 404)
        let problem = try #require(response.problem)
        #expect(problem.type == "urn:remvvm:problem:view-model-unavailable")
        #expect(problem.detail.contains("not available in the current state"))

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(try live.get("/viewmodels/greetings").bodyString == #"{"greetings":"Hello Ada Lovelace <3"}"#)
    }

    @Test(arguments: Transport.allCases)
    func unknownViewModelAnswers404ListingTheKnownOnes(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.get("/viewmodels/nope?key=1")
        #expect(response.status == 404)
        #expect(response.problem?.type == "urn:remvvm:problem:unknown-view-model")
        #expect(response.problem?.known == ["counter", "counterInBase", "greetings", "login", "navigation"])
    }
}
