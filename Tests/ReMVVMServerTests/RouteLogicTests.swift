import ExampleApp
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import Testing

/// Route logic called directly on the service's router: no socket.
@Suite struct RouteLogicTests {
    private func shelfRouter() throws -> Router {
        var viewModels = ViewModelRegistry<Shelf>()
        viewModels.register(ShelfViewModel.self, as: "shelf")
        let service = ReMVVMService(
            store: try Store(state: Shelf(), reducer: ShelfReducer.self),
            actions: ActionRegistry(),
            viewModels: viewModels,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return service.router()
    }

    private func exampleService() throws -> (ReMVVMService<AppState>, Store<AppState>) {
        let store = try Store.example()
        let service = ReMVVMService(
            store: store,
            actions: ExampleApp.actions,
            viewModels: ExampleApp.viewModels,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return (service, store)
    }

    private func body(_ response: Response) -> String {
        guard case .bytes(let bytes) = response.body else { return "<stream>" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func keyReachesTheKeyedFactory() throws {
        let router = try shelfRouter()
        let fiction = router.respond(to: Request(method: .GET, path: "/viewmodels/shelf", query: ["key": "fiction"]))
        #expect(fiction.status == 200)
        #expect(body(fiction) == #"{"shelf":"fiction","titles":["Dune"]}"#)
        let unknownKey = router.respond(to: Request(method: .GET, path: "/viewmodels/shelf", query: ["key": "cooking"]))
        #expect(unknownKey.status == 404)
        #expect(body(unknownKey).contains(#"not available in the current state for key \"cooking\""#))
        #expect(router.respond(to: Request(method: .GET, path: "/viewmodels/shelf")).status == 404)
    }

    /// A view model that is also a StateObserver.
    final class LiveShelf: StateObserver, Encodable, Initializable, @unchecked Sendable {
        var updates = 0
        init() {}
        func didReduce(state: Shelf, oldState: Shelf?) { updates += 1 }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(updates)
        }
    }

    @Test func observerViewModelsServedOverHTTPAreNeverSubscribed() throws {
        var viewModels = ViewModelRegistry<Shelf>()
        viewModels.register(LiveShelf.self, as: "live")
        let store = try Store(state: Shelf(), reducer: ShelfReducer.self)
        let service = ReMVVMService(
            store: store, actions: ActionRegistry(), viewModels: viewModels,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let response = service.router().respond(to: Request(method: .GET, path: "/viewmodels/live"))
        #expect(body(response) == "0", "made by the factory (Initializable), not updated by the store")
        #expect(store.observerCount == 0, "the store's thread never touches an instance being encoded")
    }

    @Test func jsonContentTypesAreRecognizedWithParametersAndSuffixes() throws {
        let (service, store) = try exampleService()
        // 16 bytes, like `application/json` (whose exact bytes are told apart first), in another case.
        for contentType in ["application/json", "Application/JSON; charset=utf-8", "application/vnd.remvvm+json", " application/json ;q=1",
                            "application/jsoN"] {
            let response = service.router().respond(to: Request(
                method: .POST, path: "/actions",
                headers: HTTPHeaders([("Content-Type", contentType)]),
                body: Array(#"{"type":"increase"}"#.utf8)
            ))
            #expect(response.status == 200, "\(contentType)")
        }
        for contentType in ["text/json", "application/jsonp", "multipart/form-data", "application/+json", "application/", "",
                            "application/jsox", "bpplication/json", "application\u{0}json"] {
            let response = service.router().respond(to: Request(
                method: .POST, path: "/actions",
                headers: HTTPHeaders([("Content-Type", contentType)]),
                body: Array(#"{"type":"increase"}"#.utf8)
            ))
            #expect(response.status == 415, "\(contentType)")
        }
        #expect(store.version == 5)
    }

    @Test func bodyTooLargeFailureBecomesA413Problem() throws {
        let (service, _) = try exampleService()
        let response = service.router().respond(
            to: RequestFailure(code: .bodyTooLarge, message: "too large"), method: .POST, path: "/actions", headers: HTTPHeaders()
        )
        #expect(response.status == 413)
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func headIsServedByGetRoutes() throws {
        let (service, _) = try exampleService()
        #expect(service.router().respond(to: Request(method: .HEAD, path: "/state")).status == 200)
    }

    @Test func eventsRouteAnswersWithAStream() throws {
        let (service, _) = try exampleService()
        try service.start()
        defer { service.stop() }
        let response = service.router().respond(to: Request(method: .GET, path: "/events"))
        guard case .stream(let stream) = response.body else {
            Issue.record("expected a stream body")
            return
        }
        #expect(response.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        stream.close()
    }
}
