import Foundation
import HTTPTestSupport
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMNavigation
import ReMVVMServer
import Testing

/// A domain that composes navigation into its state: a list of notes, a keyed `note` screen
/// (available only for a note that exists), an `about` screen, and the `navigation` view model.
private struct Notebook: StoreState, Codable {
    var notes: [String] = ["first"]
    var navigation: NavigationState

    /// One note, and two tabs: "notes" and "about".
    init() throws {
        navigation = try NavigationState(tabs: [
            NavigationTab("notes", root: Screen("notes")),
            NavigationTab("about", root: Screen("about")),
        ])
    }

    var factory: any ViewModelFactory {
        let notes = notes
        let factory = CompositeViewModelFactory()
        factory.add { NotesViewModel(count: notes.count) }
        factory.add { AboutViewModel() }
        factory.add { (key: String?) -> NoteViewModel? in
            guard let key, let index = Int(key), notes.indices.contains(index) else { return nil }
            return NoteViewModel(text: notes[index])
        }
        return factory
    }
}

private struct NotesViewModel: Encodable, Equatable { let count: Int }
private struct AboutViewModel: Encodable, Equatable { let version = "1" }
private struct NoteViewModel: Encodable, Equatable { let text: String }
private struct AddNote: StoreAction, Codable { var text: String }

private enum NotebookReducer: Reducer {
    static func reduce(state: Notebook, with action: any StoreAction) -> Notebook {
        var state = state
        if let add = action as? AddNote { state.notes.append(add.text) }
        state.navigation = NavigationReducer.reduce(state: state.navigation, with: action)
        return state
    }
}

/// The navigation actions and the `navigation` view model over HTTP (docs/http-api.md,
/// "Navigation"; rules 27–29 of docs/store-semantics.md).
@Suite struct NavigationEndpointTests {
    private final class Server {
        let server: ReMVVMServer<Notebook>
        let client: TestHTTPClient

        init() throws {
            var actions = ActionRegistry()
            actions.register(AddNote.self, as: "addNote")
            actions.registerNavigation()
            var viewModels = ViewModelRegistry<Notebook>()
            viewModels.register(NotesViewModel.self, as: "notes")
            viewModels.register(AboutViewModel.self, as: "about")
            viewModels.register(NoteViewModel.self, as: "note")
            viewModels.registerNavigation(at: \Notebook.navigation)
            let store = try Store(
                state: try Notebook(),
                reducer: NotebookReducer.self,
                middleware: [NavigationMiddleware(at: \Notebook.navigation, screens: viewModels.screenNames)]
            )
            var http = HTTPServerConfiguration()
            http.host = "127.0.0.1"
            http.port = 0
            server = ReMVVMServer(
                store: store, actions: actions, viewModels: viewModels, http: http,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            try server.start()
            client = TestHTTPClient(port: server.port)
        }

        deinit { server.shutdown() }

        func post(_ json: String, headers: [(String, String)] = []) throws -> TestHTTPResponse {
            try client.send(
                method: "POST", path: "/actions", headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8)
            )
        }

        func get(_ path: String) throws -> String {
            try client.send(method: "GET", path: path).bodyString
        }
    }

    @Test func theNavigationViewModelShowsTheTabsModalsAndTheTopScreenWithItsViewModel() throws {
        let live = try Server()
        #expect(try live.get("/viewmodels/navigation") == #"{"modals":[],"selectedTab":"notes","tabs":[{"name":"notes","stack":[{"key":null,"screen":"notes"}]},{"name":"about","stack":[{"key":null,"screen":"about"}]}],"top":{"key":null,"screen":"notes","viewModel":{"count":1}}}"#)
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"note","key":"0"}}"#).bodyString == #"{"version":1}"#)
        #expect(try live.get("/viewmodels/navigation").hasSuffix(#""top":{"key":"0","screen":"note","viewModel":{"text":"first"}}}"#))
        #expect(try live.post(#"{"type":"navigation.showModal","payload":{"screen":"about"}}"#).bodyString == #"{"version":2}"#)
        let covered = try live.get("/viewmodels/navigation")
        #expect(covered.hasPrefix(#"{"modals":[{"key":null,"screen":"about"}]"#))
        #expect(covered.hasSuffix(#""top":{"key":null,"screen":"about","viewModel":{"version":"1"}}}"#))
    }

    @Test func rule29_aTopScreenWhoseViewModelIsNotAvailableShowsNull() throws {
        let live = try Server()
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"note","key":"7"}}"#).status == 200)
        #expect(try live.get("/viewmodels/navigation").hasSuffix(#""top":{"key":"7","screen":"note","viewModel":null}}"#))
        #expect(try live.post(#"{"type":"addNote","payload":{"text":"x"}}"#).status == 200)
        #expect(try live.get("/viewmodels/navigation").hasSuffix(#""top":{"key":"7","screen":"note","viewModel":null}}"#))
    }

    @Test func rule27_anUnknownScreenOrTabIsRefusedWith422AndNothingChanges() throws {
        let live = try Server()
        let screen = try live.post(#"{"type":"navigation.push","payload":{"screen":"settings"}}"#)
        #expect(screen.status == 422)
        #expect(screen.bodyString.contains(#"no screen is named \"settings\"; the screens are about, note, notes"#))
        let navigation = try live.post(#"{"type":"navigation.showModal","payload":{"screen":"navigation"}}"#)
        #expect(navigation.status == 422, "the navigation is no screen of itself")
        let tab = try live.post(#"{"type":"navigation.selectTab","payload":{"tab":"settings"}}"#)
        #expect(tab.status == 422)
        #expect(tab.bodyString.contains(#"no tab is named \"settings\"; the tabs are notes, about"#))
        #expect(try live.get("/state").contains(#""selectedTab":"notes""#))
        #expect(try live.get("/actions").contains(#""actions":[]"#), "nothing was journaled")
    }

    @Test func rule28_aPopOnARootOrADismissWithoutAModalIsAnswered200WithTheCurrentVersion() throws {
        let live = try Server()
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"about"}}"#).bodyString == #"{"version":1}"#)
        #expect(try live.post(#"{"type":"navigation.pop"}"#).bodyString == #"{"version":2}"#)
        let atRoot = try live.post(#"{"type":"navigation.pop"}"#)
        #expect(atRoot.status == 200)
        #expect(atRoot.bodyString == #"{"version":2}"#, "no new version")
        #expect(try live.post(#"{"type":"navigation.dismissModal"}"#).bodyString == #"{"version":2}"#)
        #expect(try live.post(#"{"type":"navigation.popToRoot","payload":{}}"#).bodyString == #"{"version":2}"#)
        #expect(try live.post(#"{"type":"navigation.selectTab","payload":{"tab":"notes"}}"#).bodyString == #"{"version":2}"#)
        #expect(try live.post(#"{"type":"navigation.selectTab","payload":{"tab":"about"}}"#).bodyString == #"{"version":3}"#)
        #expect(live.server.service.subscriberCount == 0)
        let log = try live.get("/actions")
        #expect(log.contains(#""latest":3"#) && !log.contains(#""version":4"#))
    }

    /// An action that changes nothing sends no event, keeps its answer for an `Idempotency-Key`
    /// and is counted as `outcome="unchanged"` (http-api.md, "Navigation").
    @Test func anUnchangedNavigationSendsNoEventKeepsItsAnswerAndIsCountedUnchanged() throws {
        let live = try Server()
        let stream = try SSEClient(port: live.server.port, path: "/events")
        let initial = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(initial.id == "0" || initial.id?.hasPrefix("0-") == true)
        let key = [("Idempotency-Key", "pop-at-root-1")]
        let first = try live.post(#"{"type":"navigation.pop"}"#, headers: key)
        #expect(first.status == 200 && first.bodyString == #"{"version":0}"#)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"about"}}"#).bodyString == #"{"version":1}"#)
        let retry = try live.post(#"{"type":"navigation.pop"}"#, headers: key)
        #expect(retry.bodyString == #"{"version":0}"#, "the kept answer, not a pop of the pushed screen")
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(try live.get("/viewmodels/navigation").contains(#""top":{"key":null,"screen":"about""#), "the retry popped nothing")
        // The next event the stream gets is version 1's: the pop at the root sent none.
        let next = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(next.id == "1" || next.id?.hasPrefix("1-") == true, "\(String(describing: next.id))")
        stream.close()
        let metrics = try live.get("/metrics")
        #expect(metricSample(metrics, "remvvm_actions_total", ["type": "navigation.pop", "outcome": "unchanged"]) == 1)
        #expect(metricSample(metrics, "remvvm_actions_total", ["type": "navigation.push", "outcome": "applied"]) == 1)
    }

    @Test func aClientRendersFromTheNavigationStream() throws {
        let live = try Server()
        let stream = try SSEClient(port: live.server.port, path: "/viewmodels/navigation/events")
        let first = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(first.event == "viewmodel")
        #expect(first.data.contains(#""top":{"key":null,"screen":"notes","viewModel":{"count":1}}"#))
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"note","key":"0"}}"#).status == 200)
        let pushed = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(pushed.id == "1" || pushed.id?.hasPrefix("1-") == true)
        #expect(pushed.data.contains(#""top":{"key":"0","screen":"note","viewModel":{"text":"first"}}"#))
        #expect(try live.post(#"{"type":"addNote","payload":{"text":"second"}}"#).status == 200)
        #expect(try live.post(#"{"type":"navigation.pop"}"#).status == 200)
        let popped = try #require(try stream.nextEvent(timeout: .seconds(10)))
        #expect(popped.id == "3" || popped.id?.hasPrefix("3-") == true,
                "version 2 left what the user sees as it was: no event")
        #expect(popped.data.contains(#""top":{"key":null,"screen":"notes","viewModel":{"count":2}}"#))
        stream.close()
    }
}
