import ExampleApp
import Foundation
import Journal
import ReMVVM
@testable import ReMVVMServer
import Testing

/// What the document says a request may hold is what the server accepts: the screens and tabs of
/// the navigation actions, the store ids, the thin client's content types (each found by the API
/// fuzz as a request valid by the document that the server refused, or an answer it did not
/// document).
@Suite struct OpenAPIChoicesTests {
    private func document(_ live: LiveServer) throws -> [String: Any] {
        let response = try live.get("/openapi.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// The payload schema of the action `name` in the document's `Action` schema.
    private func payload(of name: String, in root: [String: Any]) throws -> [String: Any] {
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let actions = try #require((schemas["Action"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let action = try #require(actions.first { $0["title"] as? String == name })
        return try #require((action["properties"] as? [String: Any])?["payload"] as? [String: Any])
    }

    @Test func navigationActionsNameExactlyTheScreensAndTabsTheServerAccepts() throws {
        let live = try LiveServer(middleware: ExampleApp.middleware(services: Services()))
        let root = try document(live)
        for name in ["navigation.push", "navigation.showModal"] {
            let screens = try #require(((try payload(of: name, in: root))["properties"] as? [String: Any])?["screen"] as? [String: Any])
            #expect(screens["enum"] as? [String] == ["counter", "counterInBase", "greetings", "login"], "\(name)")
        }
        let tabs = try #require(((try payload(of: "navigation.selectTab", in: root))["properties"] as? [String: Any])?["tab"] as? [String: Any])
        #expect(tabs["enum"] as? [String] == ["account", "counter"])
        for screen in ["counter", "counterInBase", "greetings", "login"] {
            let response = try live.post(#"{"type":"navigation.showModal","payload":{"screen":"\#(screen)"}}"#)
            #expect(response.status == 200, "showModal \(screen): \(response.bodyString)")
        }
        for tab in ["account", "counter"] {
            let response = try live.post(#"{"type":"navigation.selectTab","payload":{"tab":"\#(tab)"}}"#)
            #expect(response.status == 200, "selectTab \(tab): \(response.bodyString)")
        }
        #expect(try live.post(#"{"type":"navigation.push","payload":{"screen":"navigation"}}"#).status == 422)
        #expect(try live.post(#"{"type":"navigation.selectTab","payload":{"tab":"settings"}}"#).status == 422)
    }

    @Test func everyStoreIdTheDocumentNamesFollowsTheIdRule() throws {
        let root = try document(try LiveServer())
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        var patterns: Set<String> = []
        var named = 0
        for (path, operations) in paths {
            for (method, operation) in operations {
                let parameters = (operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
                for parameter in parameters where parameter["name"] as? String == "store" || (path == "/stores" && parameter["name"] as? String == "after") {
                    named += 1
                    let pattern = ((parameter["schema"] as? [String: Any])?["pattern"] as? String)
                    #expect(pattern != nil, "\(method) \(path): \(parameter["name"] ?? "")")
                    pattern.map { _ = patterns.insert($0) }
                }
            }
        }
        #expect(named >= 10)
        let pattern = try #require(patterns.count == 1 ? patterns.first : nil)
        let expression = try NSRegularExpression(pattern: pattern)
        let samples = ["a", "default", "room-1", "Z.9_~-", "0", String(repeating: "x", count: 128), String(repeating: "x", count: 129),
                       "", "-a", ".a", "~a", "_a", "a b", "a/b", "*", "é", "room*"]
        for sample in samples {
            let matches = expression.firstMatch(in: sample, range: NSRange(sample.startIndex..., in: sample)) != nil
            #expect(matches == ((try? StoreID(sample)) != nil), "\(sample)")
        }
    }

    @Test func theThinClientsFilesAreDocumentedWithTheTypeTheyAreServedAs() throws {
        let live = try LiveServer()
        let root = try document(live)
        let file = try #require(((root["paths"] as? [String: [String: Any]])?["/app/{file}"]?["get"]) as? [String: Any])
        let content = try #require((((file["responses"] as? [String: Any])?["200"]) as? [String: Any])?["content"] as? [String: Any])
        for name in AppAssets.fileNames {
            let response = try live.get("/app/" + name)
            #expect(response.status == 200)
            let type = try #require(response.headers["Content-Type"]?.split(separator: ";").first.map(String.init))
            #expect(content[type] != nil, "\(name): \(type)")
        }
    }
}
