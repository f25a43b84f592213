import ExampleApp
import HTTPTestSupport
import Testing

private struct VersionAnswer: Decodable {
    var version: UInt64
}

/// `POST /viewmodels/<name>/commands/<command>` with the example's commands, and its refusals
/// (docs/http-api.md, "View-model commands"), over a socket and in process.
@Suite struct CommandEndpointTests {
    @Test(arguments: Transport.allCases)
    func counterCommandsIncreaseAndDecreaseLikeTheirActions(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let increased = try live.command("counter/commands/increase").expect(status: 200, contentType: "application/json")
        #expect(increased.bodyString == #"{"version":1}"#)
        #expect(try live.command("counter/commands/increase", "{}").bodyString == #"{"version":2}"#)
        #expect(try live.command("counter/commands/decrease", #"{"ignored":true}"#).bodyString == #"{"version":3}"#)
        #expect(try live.command("counter/commands/increase?key=any").bodyString == #"{"version":4}"#,
                "the example's factory ignores keys")
        #expect(try live.get("/viewmodels/counter").bodyString == #"{"counter":"2"}"#)
        #expect(try live.get("/actions").bodyString.contains(#""type":"increase""#), "journaled under the wire name")
    }

    @Test(arguments: Transport.allCases)
    func loginAndLogoutCommandsFollowTheScreens(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.get("/viewmodels/login").bodyString == #"{"prompt":"Log in with your first and last name"}"#)
        let login = try live.command("login/commands/login", #"{"firstName":"Ada","lastName":"Lovelace"}"#)
        #expect(login.status == 200)
        #expect(login.bodyString == #"{"version":1}"#)
        #expect(try live.get("/state").bodyString == #"{"counter":0,"user":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(try live.get("/viewmodels/greetings").bodyString == #"{"greetings":"Hello Ada Lovelace <3"}"#)

        let again = try live.command("login/commands/login", #"{"firstName":"Grace","lastName":"Hopper"}"#)
        #expect(again.status == 404, "the login screen is gone once someone is logged in")
        #expect(again.problem?.type == "urn:remvvm:problem:view-model-unavailable")
        #expect(again.problem?.detail.contains("not available in the current state") == true)

        #expect(try live.command("greetings/commands/logout").bodyString == #"{"version":2}"#)
        #expect(try live.get("/state").bodyString == #"{"counter":0,"user":null}"#)
        let loggedOut = try live.command("greetings/commands/logout?key=k")
        #expect(loggedOut.status == 404)
        #expect(loggedOut.problem?.detail.contains(#"for key "k""#) == true)
        #expect(live.store.version == 2, "refusals change nothing")
        let log = try live.get("/actions").bodyString
        #expect(log.contains(#""type":"login""#) && log.contains(#""type":"logout""#))
    }

    @Test(arguments: Transport.allCases)
    func anUnknownViewModelOrCommandIs404ListingTheKnownOnes(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let viewModel = try live.command("nope/commands/increase", "{}")
        #expect(viewModel.status == 404)
        #expect(viewModel.problem?.type == "urn:remvvm:problem:unknown-view-model")
        #expect(viewModel.problem?.known == ["counter", "counterInBase", "greetings", "login", "navigation"])

        let command = try live.command("counter/commands/reset", "{}").expect(status: 404, contentType: "application/problem+json")
        let problem = try #require(command.problem)
        #expect(problem.type == "urn:remvvm:problem:unknown-command")
        #expect(problem.known == ["decrease", "increase"])
        #expect(problem.detail.contains(#"view model "counter" has no command "reset""#))
        #expect(try live.command("greetings/commands/login", "{}").problem?.known == ["logout"])
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func aBodyTheCommandCannotDecodeIs422NamingTheField(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let cases: [(body: String?, field: String)] = [
            (nil, "firstName"),
            ("{}", "firstName"),
            (#"{"firstName":"Ada"}"#, "lastName"),
            (#"{"firstName":"Ada","lastName":7}"#, "lastName"),
            (#"{"firstName":null,"lastName":"Lovelace"}"#, "firstName"),
            ("[]", "(root)"),
            (#""Ada""#, "(root)"),
        ]
        for (body, field) in cases {
            let response = try live.command("login/commands/login", body)
            #expect(response.status == 422, "\(body ?? "no body")")
            let problem = try #require(response.problem)
            #expect(problem.type == "urn:remvvm:problem:invalid-command-body")
            #expect(problem.field == field, "\(body ?? "no body")")
            #expect(problem.detail.hasPrefix(#"the body of command "login" does not decode: "#))
        }
        for body in ["[1]", "7", "null"] {
            let response = try live.command("counter/commands/increase", body)
            #expect(response.status == 422, "a command without a body takes an object: \(body)")
            #expect(response.problem?.field == "(root)")
        }
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func aBodyThatIsNotJSONIs415OrMalformedJSONIs400AsForActions(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.command("counter/commands/increase", "{}", contentType: "text/plain").status == 415)
        #expect(try live.command("counter/commands/increase", "{}", contentType: nil).status == 415, "a body needs a Content-Type")
        let typeWithoutBody = try live.send(
            method: "POST", path: "/viewmodels/counter/commands/increase", headers: [("Content-Type", "text/plain")]
        )
        #expect(typeWithoutBody.status == 415)
        for body in [#"{"firstName":"#, #"{"firstName":"Ada","lastName":"Lovelace",}"#,
                     #"{"firstName":"Ada","firstName":"Grace","lastName":"Hopper"}"#, "{} {}"] {
            let response = try live.command("login/commands/login", body, contentType: "application/merge-patch+json; charset=utf-8")
            #expect(response.status == 400, "\(body)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
        }
        #expect(try live.command("counter/commands/increase", "", contentType: "application/json").status == 200,
                "an empty JSON body reads as {}")
        #expect(live.store.version == 1)
    }

    @Test func otherMethodsOnACommandAre405() throws {
        let live = try LiveServer()
        let response = try live.get("/viewmodels/counter/commands/increase")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST")
    }
}
