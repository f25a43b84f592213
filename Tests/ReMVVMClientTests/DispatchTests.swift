import ExampleApp
import Foundation
import ReMVVMClient
import Testing

/// `dispatch`, batches, commands and `If-Match` against a real server.
@Suite struct DispatchTests {
    @Test func aDispatchIsAnsweredWithTheVersionAndABatchWithItsLastVersion() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        #expect(try await client.dispatch(Increase()) == .applied(version: 1))
        #expect(try await client.dispatch(batch: [Increase(), Login(firstName: "Ada", lastName: "Lovelace"), Decrease()]) == .applied(version: 4))
        let (tag, state) = try await client.state(as: AppState.self)
        #expect(tag == VersionTag("\"4\""))
        #expect(state.counter == 1 && state.user?.firstName == "Ada")
    }

    @Test func anActionWithoutAWireNameIsRefusedBeforeAnythingIsSent() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, retry: quickRetries)
        let error = await #expect(throws: ClientError.self) { try await client.dispatch(Increase()) }
        #expect(error?.code == .unregisteredAction)
        #expect(try await client.stateJSON().tag.version == 0)
    }

    @Test func aRefusalIsThrownWithItsProblemAndNeverRetried() async throws {
        let server = try TestServer()
        let log = RequestLog()
        let transport = InterceptingTransport(base: URLSessionTransport(), hooks: .init(afterAnswer: { log.answered($0, $1) }))
        let client = ReMVVMClient(baseURL: server.url, transport: transport, retry: quickRetries)
        let error = await #expect(throws: ClientError.self) { try await client.dispatch(json: Array(#"{"type":"jump"}"#.utf8)) }
        #expect(error?.code == .status(422))
        #expect(error?.problem?.name == "unknown-action-type")
        #expect(error?.problem?.known == ["decrease", "increase", "login", "logout", "navigation.dismissModal", "navigation.pop", "navigation.popToRoot", "navigation.push", "navigation.selectTab", "navigation.showModal"])
        #expect(log.answers("POST", "/actions").map(\.status) == [422], "one attempt: a 4xx is never retried")
    }

    @Test func ifMatchAppliesOnlyAtThatVersion() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        try await client.dispatch(Increase())
        let error = await #expect(throws: ClientError.self) { try await client.dispatch(Increase(), ifMatch: VersionTag("0")) }
        #expect(error?.code == .status(412))
        #expect(error?.problem?.currentVersion == 1)
        #expect(try await client.dispatch(Increase(), ifMatch: VersionTag("1")) == .applied(version: 2))
    }

    @Test func aCommandRunsWithItsBodyAndAnUnavailableViewModelReadsAsNil() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        #expect(try await client.viewModel("greetings", as: Greetings.self) == nil)
        struct Name: Encodable, Sendable { let firstName: String, lastName: String }
        #expect(try await client.command("login", of: "login", body: Name(firstName: "Ada", lastName: "Lovelace")) == .applied(version: 1))
        #expect(try await client.viewModel("greetings", as: Greetings.self) == Greetings(greetings: "Hello Ada Lovelace <3"))
        let unknown = await #expect(throws: ClientError.self) { try await client.viewModel("nope", as: Greetings.self) }
        #expect(unknown?.problem?.name == "unknown-view-model")
    }

    @Test func theTokenIsSentAsABearerHeader() async throws {
        let server = try TestServer(accessControl: try testAuthorizer())
        let without = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let refused = await #expect(throws: ClientError.self) { try await without.dispatch(Increase()) }
        #expect(refused?.code == .status(401))
        let with = ReMVVMClient(baseURL: server.url, token: testToken, actions: exampleActions, retry: quickRetries)
        #expect(try await with.dispatch(Increase()) == .applied(version: 1))
        let events = Collector(with.stateEvents())
        #expect(try await events.wait(for: 1).first?.version == 1)
    }
}
