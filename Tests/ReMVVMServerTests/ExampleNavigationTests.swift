import ExampleApp
import Foundation
import MicroHTTP
import Logging
import HTTPTestSupport
import ReMVVM
import ReMVVMNavigation
import ReMVVMServer
import Testing

/// The example's screens over HTTP (docs/navigation.md): the tab "counter" (`counter`, then
/// `counterInBase` pushed with a base as its key) and the tab "account" (`greetings`, with `login`
/// as a modal that a successful login closes), with the example's own middleware.
@Suite struct ExampleNavigationTests {
    private func server(transport: Transport = .router) throws -> LiveServer {
        try LiveServer(transport: transport, middleware: ExampleApp.middleware(services: Services()))
    }

    private func dispatch(_ live: LiveServer, _ type: String, _ payload: String = "{}") throws -> TestHTTPResponse {
        try live.post(#"{"type":"\#(type)","payload":\#(payload)}"#)
    }

    private func navigation(_ live: LiveServer) throws -> [String: Any] {
        let body = try live.get("/viewmodels/navigation").body
        return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    /// The screen shown: `"screen key"` and its view model as JSON (sorted keys), `null` when none.
    private func top(_ live: LiveServer) throws -> (screen: String, viewModel: String) {
        let top = try #require(try navigation(live)["top"] as? [String: Any])
        let key = (top["key"] as? String).map { " " + $0 } ?? ""
        let viewModel = try JSONSerialization.data(withJSONObject: try #require(top["viewModel"]), options: [.sortedKeys, .fragmentsAllowed])
        return ("\(top["screen"] ?? "?")\(key)", String(decoding: viewModel, as: UTF8.self))
    }

    /// `top` renders a screen registered after the navigation as well as one registered before.
    @Test func aScreenRegisteredAfterTheNavigationIsShownWithItsViewModel() throws {
        var viewModels = ViewModelRegistry<AppState>()
        viewModels.registerNavigation(at: \AppState.navigation)
        viewModels.register(CounterViewModel.self, as: ExampleApp.counterScreen)
        let server = ReMVVMServer(
            store: try Store.example(), actions: ExampleApp.actions, viewModels: viewModels,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        defer { server.shutdown() }
        let response = server.service.responder().respond(to: Request(method: .GET, path: "/viewmodels/navigation", headers: [:], body: []))
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).hasSuffix(#""top":{"key":null,"screen":"counter","viewModel":{"counter":"0"}}}"#))
    }

    @Test func theExampleStartsOnTheCounterTabWithTheAccountTabAtItsGreeting() throws {
        let live = try server()
        #expect(try live.get("/viewmodels/navigation").bodyString == #"{"modals":[],"selectedTab":"counter","tabs":[{"name":"counter","stack":[{"key":null,"screen":"counter"}]},{"name":"account","stack":[{"key":null,"screen":"greetings"}]}],"top":{"key":null,"screen":"counter","viewModel":{"counter":"0"}}}"#)
    }

    @Test func theCounterInBaseScreenShowsTheCounterInTheBaseItsKeyNamesAndChangesIt() throws {
        let live = try server()
        #expect(try dispatch(live, "navigation.push", #"{"screen":"counterInBase","key":"2"}"#).bodyString == #"{"version":1}"#)
        #expect(try live.command("counterInBase/commands/decrease?key=2").bodyString == #"{"version":2}"#)
        #expect(try top(live) == ("counterInBase 2", #"{"base":2,"counter":"-1"}"#))
        for _ in 0..<6 { #expect(try live.command("counterInBase/commands/increase?key=2").status == 200) }
        #expect(try top(live) == ("counterInBase 2", #"{"base":2,"counter":"101"}"#))
        #expect(try dispatch(live, "navigation.push", #"{"screen":"counterInBase","key":"16"}"#).status == 200)
        #expect(try top(live).viewModel == #"{"base":16,"counter":"5"}"#)
        #expect(try dispatch(live, "navigation.push", #"{"screen":"counterInBase","key":"37"}"#).status == 200)
        #expect(try top(live) == ("counterInBase 37", "null"), "a base out of 2–36 is a screen whose view model is not available")
        #expect(try dispatch(live, "navigation.popToRoot").status == 200)
        #expect(try top(live) == ("counter", #"{"counter":"5"}"#))
    }

    @Test func aSuccessfulLoginClosesTheLoginModalInTheSameVersion() throws {
        let live = try server()
        #expect(try dispatch(live, "navigation.selectTab", #"{"tab":"account"}"#).bodyString == #"{"version":1}"#)
        #expect(try top(live) == ("greetings", "null"), "nobody is logged in yet")
        #expect(try dispatch(live, "navigation.showModal", #"{"screen":"login"}"#).bodyString == #"{"version":2}"#)
        #expect(try top(live) == ("login", #"{"prompt":"Log in with your first and last name"}"#))
        #expect(try live.command("login/commands/login", #"{"firstName":"Ada","lastName":"Lovelace"}"#).bodyString == #"{"version":3}"#)
        #expect(try top(live) == ("greetings", #"{"greetings":"Hello Ada Lovelace <3"}"#))
        #expect((try navigation(live)["modals"] as? [Any])?.isEmpty == true)
        #expect(try live.get("/state").bodyString.contains(#""selectedTab":"account""#))
    }

    @Test func aLoginWithAnotherScreenShownLeavesTheNavigationAsItIs() throws {
        let live = try server()
        #expect(try dispatch(live, "navigation.showModal", #"{"screen":"counterInBase","key":"8"}"#).status == 200)
        let before = try live.get("/viewmodels/navigation").bodyString
        #expect(try dispatch(live, "login", #"{"firstName":"Ada","lastName":"Lovelace"}"#).status == 200)
        #expect(try live.get("/viewmodels/navigation").bodyString == before)
    }

    @Test func anUnknownScreenOrTabIsRefusedNamingTheExamplesScreensAndTabs() throws {
        let live = try server()
        let screen = try dispatch(live, "navigation.push", #"{"screen":"settings"}"#)
        #expect(screen.status == 422)
        #expect(screen.bodyString.contains("the screens are counter, counterInBase, greetings, login"))
        let tab = try dispatch(live, "navigation.selectTab", #"{"tab":"settings"}"#)
        #expect(tab.status == 422)
        #expect(tab.bodyString.contains("the tabs are counter, account"))
        #expect(try dispatch(live, "navigation.pop").bodyString == #"{"version":0}"#, "a pop on the root changes nothing")
    }

    @Test func theStateOfAStoreNobodyNavigatedInIsTheJSONItWasBeforeNavigation() throws {
        let live = try server()
        #expect(try live.get("/state").bodyString == #"{"counter":0,"user":null}"#)
        #expect(try dispatch(live, "navigation.push", #"{"screen":"counterInBase","key":"2"}"#).status == 200)
        #expect(try live.get("/state").bodyString.hasPrefix(#"{"counter":0,"navigation":{"modals":[],"selectedTab":"counter","tabs":[{"name":"counter","stack":[{"key":null,"screen":"counter"},{"key":"2","screen":"counterInBase"}]}"#))
        #expect(try dispatch(live, "navigation.pop").status == 200)
        #expect(try live.get("/state").bodyString == #"{"counter":0,"user":null}"#, "back at the start")
    }

    @Test func theNavigationStreamSendsTheNewTopScreenOnEachChange() throws {
        let live = try server(transport: .live)
        let stream = try SSEClient(port: live.port, path: "/viewmodels/navigation/events")
        let next = { () throws -> String in try #require(try stream.nextEvent(timeout: .seconds(10))).data }
        #expect(try next().contains(#""top":{"key":null,"screen":"counter","viewModel":{"counter":"0"}}"#))
        #expect(try dispatch(live, "increase").status == 200)
        #expect(try next().contains(#""top":{"key":null,"screen":"counter","viewModel":{"counter":"1"}}"#))
        #expect(try dispatch(live, "navigation.selectTab", #"{"tab":"account"}"#).status == 200)
        #expect(try next().contains(#""top":{"key":null,"screen":"greetings","viewModel":null}"#))
    }
}
