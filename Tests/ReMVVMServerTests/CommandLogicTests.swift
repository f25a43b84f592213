import Foundation
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import Testing

/// View-model commands of a domain with keyed view models, called on the service's router (no
/// socket): the key reaches the factory, the command gets the view model and the store's
/// services, and what a command returns or throws decides the answer.
@Suite struct CommandLogicTests {
    /// Not registered in the ActionRegistry: a command must not dispatch it.
    struct Unregistered: StoreAction {}

    struct Book: Decodable, Sendable {
        var title: String
    }

    struct Broken: Error {}

    static let commands: [ViewModelCommand<ShelfViewModel>] = [
        // The view model says which shelf the key chose.
        ViewModelCommand("shelve", body: Book.self) { book, shelf, _ in
            guard !book.title.isEmpty else { throw CommandRejection(reason: "a book needs a title") }
            return [Shelve(shelf: shelf.shelf, title: book.title)]
        },
        ViewModelCommand("stamp") { _, services in
            [Stamp(at: String(services.clock.now().timeIntervalSince1970))]
        },
        ViewModelCommand("nothing") { _, _ in [] },
        ViewModelCommand("unregistered") { shelf, _ in [Shelve(shelf: shelf.shelf, title: "first"), Unregistered()] },
        ViewModelCommand("broken") { _, _ in throw Broken() },
    ]

    private func service() throws -> (Router, Store<Shelf>) {
        var actions = ActionRegistry()
        actions.register(Shelve.self, as: "shelve")
        actions.register(Stamp.self, as: "stamp")
        var viewModels = ViewModelRegistry<Shelf>()
        viewModels.register(ShelfViewModel.self, as: "shelf", commands: Self.commands)
        var services = Services()
        services.clock = FixedClock(Date(timeIntervalSince1970: 1_234))
        let store = try Store(state: Shelf(), reducer: ShelfReducer.self, services: services)
        let service = ReMVVMService(
            store: store,
            actions: actions,
            viewModels: viewModels,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return (service.router(), store)
    }

    private func post(_ router: Router, _ command: String, key: String?, body: String = "{}") -> Response {
        router.respond(to: Request(
            method: .POST,
            path: "/viewmodels/shelf/commands/\(command)",
            query: key.map { ["key": $0] } ?? [:],
            headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Array(body.utf8)
        ))
    }

    private func text(_ response: Response) -> String {
        guard case .bytes(let bytes) = response.body else { return "<stream>" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theKeyChoosesTheViewModelTheCommandWorksOn() throws {
        let (router, store) = try service()
        let poetry = post(router, "shelve", key: "poetry", body: #"{"title":"Odes"}"#)
        #expect(poetry.status == 200)
        #expect(text(poetry) == #"{"version":1}"#)
        #expect(store.state.books["poetry"] == ["Odes"])
        #expect(store.state.books["fiction"] == ["Dune"])
    }

    @Test func aKeyTheFactoryDoesNotAcceptIs404LikeGETAndChangesNothing() throws {
        let (router, store) = try service()
        for key in ["cooking", nil] {
            let response = post(router, "shelve", key: key, body: #"{"title":"Soup"}"#)
            #expect(response.status == 404)
            #expect(text(response).contains("urn:remvvm:problem:view-model-unavailable"))
            let read = router.respond(to: Request(method: .GET, path: "/viewmodels/shelf", query: key.map { ["key": $0] } ?? [:]))
            #expect(read.status == 404, "the same answer as GET /viewmodels/shelf")
        }
        #expect(text(post(router, "shelve", key: "cooking", body: "{}")).contains(#""field":"title""#),
                "the body is decoded first: 422 whatever the key")
        #expect(store.version == 0)
    }

    @Test func aCommandRejectionIs422WithItsReason() throws {
        let (router, store) = try service()
        let response = post(router, "shelve", key: "fiction", body: #"{"title":""}"#)
        #expect(response.status == 422)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(text(response).contains(#""type":"urn:remvvm:problem:command-rejected""#))
        #expect(text(response).contains("a book needs a title"))
        #expect(store.version == 0)
    }

    @Test func theCommandGetsTheStoresServices() throws {
        let (router, store) = try service()
        #expect(post(router, "stamp", key: "fiction").status == 200)
        #expect(store.state.stampedAt == "1234.0", "the fixed clock given to the store")
    }

    @Test func aCommandWithoutActionsIs202() throws {
        let (router, store) = try service()
        let response = post(router, "nothing", key: "fiction")
        #expect(response.status == 202)
        #expect(text(response) == #"{"accepted":true}"#)
        #expect(store.version == 0)
    }

    @Test func anActionWithoutAWireNameIsRefusedWith500AndNoneOfTheCommandsActionsIsDispatched() throws {
        let (router, store) = try service()
        let response = post(router, "unregistered", key: "fiction")
        #expect(response.status == 500)
        #expect(text(response).contains("urn:remvvm:problem:action-not-journaled"))
        #expect(text(response).contains("Unregistered"), "names the type")
        #expect(store.version == 0)
    }

    @Test func aCommandThatFailsIs500AndDispatchesNothing() throws {
        let (router, store) = try service()
        let response = post(router, "broken", key: "fiction")
        #expect(response.status == 500)
        #expect(!text(response).contains("Broken"), "the error stays in the log")
        #expect(store.version == 0)
    }

    @Test func theCommandsAreListedAndDocumented() throws {
        let (router, _) = try service()
        let list = text(router.respond(to: Request(method: .GET, path: "/viewmodels")))
        #expect(list == #"{"commands":{"shelf":["broken","nothing","shelve","stamp","unregistered"]},"viewModels":["shelf"]}"#)
        let document = try #require(try JSONSerialization.jsonObject(
            with: Data(text(router.respond(to: Request(method: .GET, path: "/openapi.json"))).utf8)
        ) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let shelve = try #require(paths["/viewmodels/shelf/commands/shelve"]?["post"] as? [String: Any])
        let body = try #require(shelve["requestBody"] as? [String: Any])
        #expect(body["required"] as? Bool == true)
        let schema = try #require(((body["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
        #expect(schema["required"] as? [String] == ["title"])
        let stamp = try #require(paths["/viewmodels/shelf/commands/stamp"]?["post"] as? [String: Any])
        #expect((stamp["requestBody"] as? [String: Any])?["required"] as? Bool == false, "no required field: the body may be left out")
        let responses = try #require(shelve["responses"] as? [String: Any])
        #expect(Set(responses.keys).isSuperset(of: ["200", "202", "400", "404", "409", "412", "415", "422", "500"]))
    }
}
