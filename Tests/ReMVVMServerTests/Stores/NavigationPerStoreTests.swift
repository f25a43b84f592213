import ExampleApp
import HTTPTestSupport
import Testing

/// Navigation held per store (docs/navigation.md, "One navigation per session"): each store of the
/// example (made as `remvvm-server` makes them: with the example's middleware) its own tabs,
/// stacks and modals, changed only by the actions posted to it.
@Suite struct NavigationPerStoreTests {
    @Test(arguments: Transport.allCases)
    func eachStoreNavigatesOnItsOwn(transport: Transport) throws {
        let server = try StoresServer(transport: transport, makeStore: { try ExampleApp.store() })
        #expect(try server.send("PUT", "/stores/session-a").status == 201)
        #expect(try server.send("PUT", "/stores/session-b").status == 201)
        let modal = try server.send("POST", "/stores/session-a/actions", body: #"{"type":"navigation.showModal","payload":{"screen":"login"}}"#)
        #expect(modal.bodyString == #"{"version":1}"#)
        let tab = try server.send("POST", "/stores/session-b/actions", body: #"{"type":"navigation.selectTab","payload":{"tab":"account"}}"#)
        #expect(tab.bodyString == #"{"version":1}"#)

        let a = try server.send("GET", "/stores/session-a/viewmodels/navigation").bodyString
        #expect(a.hasPrefix(#"{"modals":[{"key":null,"screen":"login"}],"selectedTab":"counter""#), "\(a)")
        #expect(a.contains(#""top":{"key":null,"screen":"login""#), "\(a)")
        let b = try server.send("GET", "/stores/session-b/viewmodels/navigation").bodyString
        #expect(b.hasPrefix(#"{"modals":[],"selectedTab":"account""#), "\(b)")
        #expect(b.contains(#""top":{"key":null,"screen":"greetings""#), "\(b)")
        let root = try server.send("GET", "/viewmodels/navigation").bodyString
        #expect(root.hasPrefix(#"{"modals":[],"selectedTab":"counter""#), "default is a store of its own: \(root)")

        // A dismiss closes a's modal; a second finds none and changes nothing, in a alone.
        #expect(try server.send("POST", "/stores/session-a/actions", body: #"{"type":"navigation.dismissModal"}"#).bodyString == #"{"version":2}"#)
        let again = try server.send("POST", "/stores/session-a/actions", body: #"{"type":"navigation.dismissModal"}"#)
        #expect(again.bodyString == #"{"version":2}"#, "\(again.status) \(again.bodyString)")
        #expect(try server.send("GET", "/stores/session-b/state").headers["ETag"]?.hasPrefix("\"1-") == true)
    }
}
