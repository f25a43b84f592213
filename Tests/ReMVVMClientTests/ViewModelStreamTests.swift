import ExampleApp
import Foundation
import ReMVVMClient
import Testing

/// View models as typed `AsyncSequence`s (`GET /viewmodels/<name>/events`).
@Suite struct ViewModelStreamTests {
    @Test func aViewModelStreamIsTypedAndAnUnavailableViewModelIsNil() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let greetings = Collector(client.viewModels("greetings", as: Greetings.self))
        try await greetings.wait(for: 1)
        try await client.dispatch(Increase())  // greetings unchanged: no event
        try await client.dispatch(Login(firstName: "Ada", lastName: "Lovelace"))
        try await client.dispatch(Logout())
        let seen = try await greetings.wait(for: 3)
        #expect(seen.map(\.version) == [0, 2, 3])
        #expect(seen.map(\.viewModel) == [nil, Greetings(greetings: "Hello Ada Lovelace <3"), nil])
    }

    @Test func aViewModelStreamResumesAcrossARestartWithoutRepeatingAChange() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let counter = Collector(client.viewModels("counter", as: Counter.self))
        try await client.dispatch(Increase())
        try await counter.wait { $0.last?.version == 1 }
        try server.restart()
        try await client.dispatch(Increase())
        let seen = try await counter.wait { $0.last?.version == 2 }
        #expect(seen.map(\.version) == [0, 1, 2] || seen.map(\.version) == [1, 2])
        #expect(seen.last?.viewModel == Counter(counter: "2"))
    }

    @Test func anUnknownViewModelEndsTheStreamWithTheKnownNames() async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, retry: quickRetries)
        let stream = Collector(client.viewModels("nope", as: Counter.self))
        await #expect(throws: TimedOut.self) { try await stream.wait(for: 1) }
        #expect(stream.failure?.contains("404") == true)
    }
}
