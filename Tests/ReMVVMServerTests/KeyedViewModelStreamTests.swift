import Foundation
import HTTPTestSupport
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import Testing

/// View-model streams of the shelf domain (`Support/ShelfDomain.swift`: a factory that takes keys,
/// a view model that is not `Equatable`, compared by its JSON), over real sockets: the key reaches the factory, a key it
/// does not accept is `unavailable` until the state makes it one, and a change under another key
/// sends nothing.
@Suite struct KeyedViewModelStreamTests {
    /// A started server of the library; shut down when released.
    final class Server: Sendable {
        let server: ReMVVMServer<Shelf>

        init() throws {
            var actions = ActionRegistry()
            actions.register(Shelve.self, as: "shelve")
            var viewModels = ViewModelRegistry<Shelf>()
            viewModels.register(ShelfViewModel.self, as: "shelf")
            var http = HTTPServerConfiguration()
            http.host = "127.0.0.1"
            http.port = 0
            server = ReMVVMServer(
                store: try Store(state: Shelf(), reducer: ShelfReducer.self),
                actions: actions,
                viewModels: viewModels,
                http: http,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            try server.start()
        }

        deinit {
            server.shutdown()
        }

        func shelve(_ title: String, on shelf: String) throws {
            let body = #"{"type":"shelve","payload":{"shelf":"\#(shelf)","title":"\#(title)"}}"#
            let response = try TestHTTPClient(port: server.port).send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(body.utf8)
            )
            #expect(response.status == 200)
        }

        func stream(_ path: String) throws -> SSEClient {
            try SSEClient(port: server.port, path: path)
        }
    }

    @Test func theKeyReachesTheFactoryAndAnotherKeysChangeSendsNothing() throws {
        let library = try Server()
        let fiction = try library.stream("/viewmodels/shelf/events?key=fiction")
        let poetry = try library.stream("/viewmodels/shelf/events?key=poetry")
        #expect(try fiction.nextEvent(timeout: .seconds(5))?.data == #"{"version":0,"name":"shelf","key":"fiction","viewModel":{"shelf":"fiction","titles":["Dune"]}}"#)
        #expect(try poetry.nextEvent(timeout: .seconds(5))?.data == #"{"version":0,"name":"shelf","key":"poetry","viewModel":{"shelf":"poetry","titles":[]}}"#)

        try library.shelve("Emma", on: "fiction")  // 1: fiction only
        try library.shelve("Odes", on: "poetry")  // 2: poetry only
        #expect(try fiction.nextEvent(timeout: .seconds(5))?.data == #"{"version":1,"name":"shelf","key":"fiction","viewModel":{"shelf":"fiction","titles":["Dune","Emma"]}}"#)
        #expect(try poetry.nextEvent(timeout: .seconds(5))?.data == #"{"version":2,"name":"shelf","key":"poetry","viewModel":{"shelf":"poetry","titles":["Odes"]}}"#)
        try library.shelve("Ulysses", on: "fiction")  // 3
        #expect(try fiction.nextEvent(timeout: .seconds(5))?.version == 3, "version 2 did not change fiction")
    }

    /// Keys are told apart by their code points, not by Swift's canonical equivalence: `é` sent
    /// precomposed and `e` + combining accent are two keys, each stream getting its own back.
    @Test func keysThatDifferInCodePointsAreTwoKeys() throws {
        let library = try Server()
        let precomposed = try library.stream("/viewmodels/shelf/events?key=%C3%A9")
        let decomposed = try library.stream("/viewmodels/shelf/events?key=e%CC%81")
        let first = try #require(try precomposed.nextEvent(timeout: .seconds(5)))
        let second = try #require(try decomposed.nextEvent(timeout: .seconds(5)))
        // Compared as bytes: `==` on String would find the two equal.
        #expect(Array(first.data.utf8) == Array(#"{"version":0,"name":"shelf","key":"\#u{E9}"}"#.utf8))
        #expect(Array(second.data.utf8) == Array(#"{"version":0,"name":"shelf","key":"e\#u{301}"}"#.utf8))
    }

    @Test func aKeyTheFactoryDoesNotAcceptIsUnavailableUntilTheStateMakesIt() throws {
        let library = try Server()
        let history = try library.stream("/viewmodels/events?name=shelf&key.shelf=history")
        #expect(try history.nextEvent(timeout: .seconds(5))?.data == #"{"version":0,"name":"shelf","key":"history"}"#)
        #expect(try TestHTTPClient(port: library.server.port).send(method: "GET", path: "/viewmodels/shelf?key=history").status == 404)

        try library.shelve("Dune", on: "fiction")  // 1: history still unavailable, nothing sent
        try library.shelve("SPQR", on: "history")  // 2: now there is a history shelf
        let available = try #require(try history.nextEvent(timeout: .seconds(5)))
        #expect(available.event == "viewmodel")
        #expect(available.data == #"{"version":2,"name":"shelf","key":"history","viewModel":{"shelf":"history","titles":["SPQR"]}}"#)
    }
}
