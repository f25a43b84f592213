import ExampleApp
import Foundation
import HTTPTestSupport
import MicroHTTP
@testable import ReMVVMServer
import Testing

/// `GET /openapi.json`: an OpenAPI 3.1 document generated from the registries, covering every
/// route the router has (it cannot drift), with the action types and their payload schemas.
@Suite struct OpenAPITests {
    private func document(_ live: LiveServer) throws -> [String: Any] {
        let response = try live.get("/openapi.json").expect(status: 200, contentType: "application/json")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func everyRouteOfTheRouterIsInTheDocument() throws {
        let live = try LiveServer(transport: .router)
        let paths = try #require(try document(live)["paths"] as? [String: [String: Any]])
        for route in live.server.service.router().routes where route.method != .HEAD {
            if route.pattern.hasSuffix("/viewmodels/:name/commands/:command") {
                continue  // one operation per command, below
            }
            let path = route.pattern.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                .joined(separator: "/")
            let documented = paths["/" + path.drop { $0 == "/" }]
            #expect(documented?[route.method.rawValue.lowercased()] != nil, "\(route.method) \(route.pattern)")
        }
        for (name, commands) in ExampleApp.viewModels.commandNames {
            for command in commands {
                #expect(paths["/viewmodels/\(name)/commands/\(command)"]?["post"] != nil, "command \(name)/\(command)")
                #expect(paths["/stores/{store}/viewmodels/\(name)/commands/\(command)"]?["post"] != nil, "command \(name)/\(command) of a store")
            }
        }
    }

    /// The document declares the cookie and the query parameter on exactly the operations whose
    /// requests ``AccessGate`` reads them from: the event streams, view-model streams included.
    /// Any request may get a 503 at the connection limit or while the server stops, and a 414 for
    /// a query too large for the connection's memory (schemathesis found it undocumented); an unknown
    /// inspector file needs a token when tokens are configured; a view-model event may come
    /// without an id (only a version's last one on a connection carries it).
    @Test func busyAnswersUnknownInspectorFilesAndViewModelEventIdsAreDocumented() throws {
        let open = try LiveServer(transport: .router)
        let secured = try LiveServer(accessControl: try AccessTokens.authorizer())
        let securedDocument = try secured.get("/openapi.json", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        let securedRoot = try #require(try JSONSerialization.jsonObject(with: Data(securedDocument.body)) as? [String: Any])
        for root in [try document(open), securedRoot] {
            let paths = try #require(root["paths"] as? [String: [String: Any]])
            for (path, operations) in paths {
                for (method, operation) in operations {
                    let responses = (operation as? [String: Any])?["responses"] as? [String: Any]
                    #expect(responses?["503"] != nil, "\(method) \(path)")
                    #expect(responses?["414"] != nil, "\(method) \(path): a query too large for the connection's memory")
                }
            }
        }
        let fileResponses = { (root: [String: Any]) in
            ((root["paths"] as? [String: [String: Any]])?["/inspector/{file}"]?["get"] as? [String: Any])?["responses"] as? [String: Any]
        }
        #expect(fileResponses(try document(open))?["401"] == nil)
        #expect(fileResponses(securedRoot)?["401"] != nil)
        let schemas = try #require((try document(open)["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let viewModelEvent = try #require(schemas["ViewModelEvent"] as? [String: Any])
        #expect(viewModelEvent["required"] as? [String] == ["event", "data"])
        #expect((schemas["StateEvent"] as? [String: Any])?["required"] as? [String] == ["event", "id", "data"])
    }

    /// docs/http-api.md, "Access control and CORS": "The OpenAPI document lists the `421` on every
    /// operation of an open server"; with tokens there is no `Host` check, so no operation does.
    @Test func everyOperationOfAnOpenServerListsTheMisdirected421AndNoneWithTokens() throws {
        let open = try LiveServer(transport: .router)
        let secured = try LiveServer(transport: .router, accessControl: try AccessTokens.authorizer())
        let securedDocument = try secured.get("/openapi.json", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        let securedRoot = try #require(try JSONSerialization.jsonObject(with: Data(securedDocument.body)) as? [String: Any])
        for (root, lists421) in [(try document(open), true), (securedRoot, false)] {
            let paths = try #require(root["paths"] as? [String: [String: Any]])
            var operations = 0
            for (path, pathOperations) in paths {
                for (method, operation) in pathOperations {
                    let responses = try #require((operation as? [String: Any])?["responses"] as? [String: Any], "\(method) \(path)")
                    #expect((responses["421"] != nil) == lists421, "\(method) \(path)")
                    operations += 1
                }
            }
            #expect(operations > 20)
        }
    }

    @Test func theCookieAndTheQueryAreDeclaredWhereTheGateReadsThem() throws {
        let live = try LiveServer(accessControl: try AccessTokens.authorizer())
        let response = try live.get("/openapi.json", headers: [("Authorization", "Bearer \(AccessTokens.reader)")])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        var declared: Set<String> = []
        for (path, operations) in paths {
            guard let get = operations["get"] as? [String: Any] else { continue }
            let schemes = Set((get["security"] as? [[String: Any]] ?? []).flatMap(\.keys))
            let concrete = path.replacing(/\{[a-z]+\}/) { _ in "counter" }
            let read = AccessGate.acceptsCookieAndQuery(Request(method: .GET, path: concrete))
            #expect(schemes.contains("cookie") == read, "\(path): cookie declared \(schemes.contains("cookie")), read \(read)")
            #expect(schemes.contains("accessToken") == read, "\(path): query declared \(schemes.contains("accessToken")), read \(read)")
            if schemes.contains("cookie") { declared.insert(path) }
        }
        #expect(declared == [
            "/events", "/viewmodels/events", "/viewmodels/{name}/events",
            "/stores/{store}/events", "/stores/{store}/viewmodels/events", "/stores/{store}/viewmodels/{name}/events",
        ])
    }

    @Test func theActionTypesAndTheirPayloadSchemasComeFromTheRegistry() throws {
        let live = try LiveServer(transport: .router)
        let root = try document(live)
        #expect(root["openapi"] as? String == "3.1.0")
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let variants = try #require((schemas["Action"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        var byType: [String: [String: Any]] = [:]
        for variant in variants {
            let properties = try #require(variant["properties"] as? [String: Any])
            let type = try #require((properties["type"] as? [String: Any])?["const"] as? String)
            byType[type] = properties["payload"] as? [String: Any]
        }
        #expect(Set(byType.keys) == [
            "increase", "decrease", "login", "logout", "navigation.push", "navigation.pop", "navigation.popToRoot",
            "navigation.showModal", "navigation.dismissModal", "navigation.selectTab",
        ])
        let login = try #require(byType["login"])
        #expect(login["type"] as? String == "object")
        #expect(Set(login["required"] as? [String] ?? []) == ["firstName", "lastName"])
        let loginProperties = try #require(login["properties"] as? [String: [String: Any]])
        #expect(loginProperties["firstName"]?["type"] as? String == "string")
        // A type without required fields takes an absent or null payload (read as {}).
        #expect(byType["increase"]?["anyOf"] as? [[String: String]] == [["type": "object"], ["type": "null"]])
    }

    @Test func theViewModelNamesAreListed() throws {
        let live = try LiveServer(transport: .router)
        let paths = try #require(try document(live)["paths"] as? [String: Any])
        let list = try #require(((paths["/viewmodels"] as? [String: Any])?["get"] as? [String: Any])?["responses"] as? [String: Any])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        #expect(text.contains("counter") && text.contains("greetings"))
    }

    @Test func theCommandsAreDocumentedWithTheirBodiesAndListed() throws {
        let live = try LiveServer(transport: .router)
        let root = try document(live)
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        let login = try #require(paths["/viewmodels/login/commands/login"]?["post"] as? [String: Any])
        let body = try #require(login["requestBody"] as? [String: Any])
        #expect(body["required"] as? Bool == true)
        let schema = try #require(((body["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
        #expect(Set(schema["required"] as? [String] ?? []) == ["firstName", "lastName"])
        let parameters = try #require(login["parameters"] as? [[String: Any]])
        #expect(Set(parameters.compactMap { $0["name"] as? String }) == ["key", "If-Match", "Idempotency-Key"])
        let increase = try #require(paths["/viewmodels/counter/commands/increase"]?["post"] as? [String: Any])
        #expect((increase["requestBody"] as? [String: Any])?["required"] as? Bool == false)

        let list = try #require((((paths["/viewmodels"]?["get"] as? [String: Any])?["responses"] as? [String: Any])?["200"]
            as? [String: Any])?["content"] as? [String: Any])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        #expect(text.contains(#""commands""#) && text.contains(#""logout""#))

        // The login action's payload gained loggedInAt, which clients need not send.
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let variants = try #require((schemas["Action"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let loginAction = try #require(variants.first { $0["title"] as? String == "login" })
        let payload = try #require((loginAction["properties"] as? [String: Any])?["payload"] as? [String: Any])
        #expect((payload["properties"] as? [String: Any])?["loggedInAt"] != nil)
        #expect(Set(payload["required"] as? [String] ?? []) == ["firstName", "lastName"])
    }

    @Test func theEventStreamDocumentsTheDeltaParameterAndBothKindsOfEvent() throws {
        let live = try LiveServer(transport: .router)
        let root = try document(live)
        let events = try #require(((root["paths"] as? [String: Any])?["/events"] as? [String: Any])?["get"] as? [String: Any])
        let parameters = try #require(events["parameters"] as? [[String: Any]])
        let delta = try #require(parameters.first { $0["name"] as? String == "delta" })
        #expect(delta["in"] as? String == "query")
        #expect(delta["required"] as? Bool == false)
        #expect((delta["schema"] as? [String: Any])?["enum"] as? [String] == ["json-patch"])
        let responses = try #require(events["responses"] as? [String: Any])
        #expect(responses["400"] != nil)
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let patch = try #require(schemas["PatchEvent"] as? [String: Any])
        #expect(((patch["properties"] as? [String: Any])?["event"] as? [String: String])?["const"] == "patch")
    }

    @Test func schemaInferenceFollowsNestedOptionalAndArrayFields() throws {
        struct Address: Decodable { var city: String; var zip: Int? }
        struct Order: Decodable { var items: [String]; var total: Double; var paid: Bool; var address: Address; var note: String? }
        let schema = try #require(SchemaInference.schema(of: Order.self))
        #expect(schema["required"] == ["address", "items", "paid", "total"])
        #expect(schema["properties"]?["items"] == ["type": "array", "items": ["type": "string"]])
        #expect(schema["properties"]?["total"] == ["type": "number"])
        #expect(schema["properties"]?["note"] == ["type": "string"])
        #expect(schema["properties"]?["address"]?["required"] == ["city"])
        #expect(schema["properties"]?["address"]?["properties"]?["zip"] == ["type": "integer"])
    }

    @Test func aTypeTheInferenceCannotFollowHasNoSchema() {
        enum Color: String, Decodable { case red, green }
        struct Paint: Decodable { var color: Color }
        #expect(SchemaInference.schema(of: Paint.self) == nil, "a raw-value enum refuses the placeholder")
    }
}
