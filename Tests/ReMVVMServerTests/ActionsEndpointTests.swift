import ExampleApp
import HTTPTestSupport
import ReMVVM
import Testing

/// `POST /actions` as docs/http-api.md specifies it: over a real socket, and where the test needs no
/// socket of its own, also in process through the router.
@Suite struct ActionsEndpointTests {
    @Test(arguments: Transport.allCases)
    func singleActionIsReducedAndAnswers200WithTheVersion(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(#"{"type":"increase"}"#).expect(status: 200, contentType: "application/json")
        #expect(response.bodyString == #"{"version":1}"#)
        #expect(live.store.state.counter == 1)
    }

    @Test(arguments: Transport.allCases)
    func actionWithPayloadIsDecodedThroughTheRegistry(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        #expect(response.bodyString == #"{"version":1}"#)
        #expect(live.store.state.user == User(firstName: "Ada", lastName: "Lovelace"))
    }

    @Test(arguments: Transport.allCases)
    func batchIsAppliedInOrderAndAnswersTheVersionAfterItsLastAction(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(
            #"[{"type":"increase"},{"type":"login","payload":{"firstName":"A","lastName":"B"}},{"type":"decrease"},{"type":"increase"}]"#
        )
        #expect(response.status == 200)
        #expect(response.bodyString == #"{"version":4}"#)
        #expect(live.store.state == AppState(counter: 1, user: User(firstName: "A", lastName: "B")))
    }

    @Test(arguments: Transport.allCases)
    func batchWithOneUndecodableActionAppliesNone(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let problem = try live.post(#"[{"type":"increase"},{"type":"login","payload":{"firstName":"A"}}]"#).problem(status: 422)
        #expect(problem.index == 1)
        #expect(problem.field == "payload.lastName")
        #expect(problem.detail.contains("no action of the batch was applied"))
        #expect(live.store.version == 0)
    }

    /// A batch's 422 lists its members in the order of docs/http-api.md, "Errors": `type`,
    /// `title`, `status`, `detail`, then `field` and `index`; compact, byte for byte.
    @Test(arguments: Transport.allCases)
    func aBatchProblemListsItsMembersInTheDocumentedOrder(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(#"[{"type":"increase"},{"type":"login","payload":{"firstName":"A"}}]"#)
            .expect(status: 422, contentType: "application/problem+json")
        #expect(response.bodyString == #"{"type":"urn:remvvm:problem:invalid-payload","title":"Invalid action payload","status":422,"detail":"the payload of \"login\" does not decode: action [1]: missing field payload.lastName; no action of the batch was applied","field":"payload.lastName","index":1}"#)
    }

    @Test(arguments: Transport.allCases)
    func middlewareThatHoldsTheActionAnswers202(transport: Transport) throws {
        let live = try LiveServer(transport: transport, middleware: [HoldingMiddleware()])
        let response = try live.post(#"{"type":"increase"}"#)
        #expect(response.status == 202)
        #expect(response.bodyString == #"{"accepted":true}"#)
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func middlewareRejectionAnswers422WithItsReason(transport: Transport) throws {
        let live = try LiveServer(transport: transport, middleware: [RejectSecondLogin()])
        let login = #"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#
        #expect(try live.post(login).status == 200)
        let problem = try live.post(login).problem(status: 422)
        #expect(problem.type == "urn:remvvm:problem:action-rejected")
        #expect(problem.detail.contains("already logged in"))
        #expect(live.store.version == 1)
    }

    @Test(arguments: Transport.allCases)
    func malformedJSONAnswers400AndChangesNothing(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        for body in [#"{"type":"#, "not json", "", "{\"type\":\"increase\"} trailing"] {
            let response = try live.post(body)
            #expect(response.status == 400, "body: \(body)")
            #expect(response.problem?.title == "Bad Request")
        }
        #expect(live.store.version == 0)
    }

    @Test func bodyThatIsNotUTF8Answers400WhereverTheBadByteIs() throws {
        let live = try LiveServer()
        let bodies: [[UInt8]] = [
            Array(#"{"type":"incr"#.utf8) + [0xFF] + Array(#"ase"}"#.utf8),
            Array(#"[{"type":"incr"#.utf8) + [0xC3] + Array(#"ase"}]"#.utf8),
            Array(#"{"type":"login","payload":{"firstName":""#.utf8) + [0xFF] + Array(#"","lastName":"B"}}"#.utf8),
        ]
        for body in bodies {
            let response = try live.client().send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: body
            )
            #expect(response.status == 400)
            #expect(response.problem?.detail.contains("UTF-8") == true)
        }
        // Valid non-ASCII text is fine.
        let accepted = try live.post(#"{"type":"login","payload":{"firstName":"Zoë","lastName":"Łukasz"}}"#)
        #expect(accepted.status == 200)
        #expect(live.store.version == 1)
    }

    @Test(arguments: Transport.allCases)
    func unknownTypeAnswers422ListingTheKnownTypes(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let problem = try live.post(#"{"type":"explode"}"#).problem(status: 422)
        #expect(problem.type == "urn:remvvm:problem:unknown-action-type")
        #expect(problem.known == ["decrease", "increase", "login", "logout", "navigation.dismissModal", "navigation.pop", "navigation.popToRoot", "navigation.push", "navigation.selectTab", "navigation.showModal"])
        #expect(problem.detail.contains("explode"))
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func payloadThatDoesNotDecodeAnswers422NamingTheField(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let missing = try live.post(#"{"type":"login","payload":{"firstName":"Ada"}}"#)
        #expect(missing.status == 422)
        #expect(missing.problem?.type == "urn:remvvm:problem:invalid-payload")
        #expect(missing.problem?.field == "payload.lastName")
        let wrongType = try live.post(#"{"type":"login","payload":{"firstName":1,"lastName":"L"}}"#)
        #expect(wrongType.problem?.type == "urn:remvvm:problem:invalid-payload")
        #expect(wrongType.problem?.field == "payload.firstName")
        let absent = try live.post(#"{"type":"login"}"#)
        #expect(absent.problem?.type == "urn:remvvm:problem:invalid-payload")
        #expect(absent.problem?.field == "payload.firstName")
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func actionsThatAreNotActionObjectsAnswer422(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        for body in ["42", "[]", #"{"payload":{}}"#, #"{"type":7}"#, "[1]"] {
            let response = try live.post(body)
            #expect(response.status == 422, "body: \(body)")
            #expect(response.problem?.type == "urn:remvvm:problem:invalid-action", "body: \(body)")
        }
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func bodyThatIsNotJSONContentAnswers415(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.post(#"{"type":"increase"}"#, contentType: "text/plain").status == 415)
        #expect(try live.post(#"{"type":"increase"}"#, contentType: nil).status == 415)
        #expect(try live.post(#"{"type":"increase"}"#, contentType: "application/json; charset=utf-8").status == 200)
        #expect(live.store.version == 1)
    }

    @Test func bodyOverTheLimitAnswers413WithOrWithoutContentLength() throws {
        let live = try LiveServer(maxBodyBytes: 1_000)
        let huge = #"{"type":"increase","payload":{"pad":""# + String(repeating: "x", count: 5_000) + #""}}"#
        let declared = try live.post(huge)
        #expect(declared.status == 413)
        #expect(declared.problem?.detail.contains("1000") == true)

        let client = live.client()
        var chunked = "POST /actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<5 {
            chunked += "3e8\r\n" + String(repeating: " ", count: 1_000) + "\r\n"
        }
        chunked += "0\r\n\r\n"
        try client.sendRaw(Array(chunked.utf8))
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(live.store.version == 0)
        #expect(try live.post(#"{"type":"increase"}"#).status == 200, "the server keeps serving")
    }

    @Test func clientDisconnectingMidRequestChangesNothingAndTheServerKeepsServing() throws {
        let live = try LiveServer()
        let client = live.client()
        try client.sendRaw(Array("POST /actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"type\":".utf8))
        client.close()
        #expect(try live.post(#"{"type":"increase"}"#).bodyString == #"{"version":1}"#)
    }
}

/// Never calls `next`: the action is taken but not reduced (202).
struct HoldingMiddleware: AnyMiddleware {
    func onNext<State>(
        for state: State, action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>, dispatcher: any Dispatcher
    ) {}
}

/// Refuses a login while someone is logged in.
struct RejectSecondLogin: Middleware {
    func onNext(for state: User?, action: Login, interceptor: Interceptor<Login, User?>, dispatcher: any Dispatcher) {
        guard state == nil else { return interceptor.reject(reason: "already logged in") }
        interceptor.next()
    }
}
