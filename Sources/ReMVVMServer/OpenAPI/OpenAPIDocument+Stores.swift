extension OpenAPIDocument {
    /// The root paths every store also has under `/stores/{store}` (`docs/http-api.md`, "Stores").
    static let storeRoutePaths = [
        "/actions", "/state", "/viewmodels", "/viewmodels/{name}", "/viewmodels/{name}/events", "/viewmodels/events", "/events",
    ]

    /// The routes of every store under `/stores/{store}` (the root operations of `root` with the
    /// `store` parameter and the answers for a bad or unknown id), a store's commands by one
    /// template, and the management routes.
    func storePaths(from root: [String: JSONValue]) -> [String: JSONValue] {
        var paths: [String: JSONValue] = [:]
        for path in Self.storeRoutePaths {
            guard case .object(let operations)? = root[path] else { continue }
            paths["/stores/{store}" + path] = .object(operations.mapValues(inStore))
        }
        paths["/stores/{store}/viewmodels/{name}/commands/{command}"] = ["post": inStore(operation(
            "postCommandOfStore", "Run a view model's command in a store (the root path documents each command's body)",
            parameters: [pathParameter("name", "A view model's name"), pathParameter("command", "The command's name")],
            requestBody: ["required": false, "content": ["application/json": ["schema": ["type": "object"]]]],
            responses: [
                "200": json(ref("VersionAnswer"), "Dispatched"),
                "404": problem("Unknown view model or command, or no such store"),
                "422": problem("The body does not decode, or the command refused"),
            ]
        ))]
        let description: JSONValue = [
            "type": "object",
            "required": ["id", "version", "createdAt", "lastActionAt", "loaded"],
            "properties": [
                "id": ["type": "string"],
                "version": ["type": "integer", "minimum": 0],
                "createdAt": ["type": "string", "format": "date-time"],
                "lastActionAt": ["type": ["string", "null"], "format": "date-time"],
                "loaded": ["type": "boolean"],
            ],
        ]
        let store = pathParameter("store", "The store's id: 1-128 of A-Z a-z 0-9 . _ ~ -, starting with a letter or a digit")
        paths["/stores/{store}"] = [
            "put": operation("putStore", "Create a store", parameters: [store, header("If-None-Match", "* to create only", ["type": "string"])], responses: [
                "200": json(description, "It exists"),
                "201": json(description, "Created"),
                "400": problem("Not a store id"),
                "412": problem("It exists (If-None-Match: *)"),
                "507": problem("maxStores reached"),
            ]),
            "get": operation("getStore", "Describe a store", parameters: [store], responses: [
                "200": json(description),
                "400": problem("Not a store id"),
                "404": problem("No such store"),
            ]),
            "delete": operation("deleteStore", "Delete a store, its streams, records and snapshots", parameters: [store], responses: [
                "204": ["description": "Deleted"],
                "400": problem("Not a store id"),
                "404": problem("No such store"),
                "405": problem("The store default cannot be deleted"),
            ]),
        ]
        paths["/stores"] = ["get": operation(
            "listStores", "List stores by id",
            parameters: [
                query("prefix", "Only ids starting with it", ["type": "string"]),
                query("after", "Only ids after it (the previous page's next)", ["type": "string"]),
                query("limit", "Page size", ["type": "integer", "minimum": 1, "maximum": 1_000, "default": 100]),
            ],
            responses: [
                "200": json([
                    "type": "object",
                    "required": ["stores", "next"],
                    "properties": ["stores": ["type": "array", "items": description], "next": ["type": ["string", "null"]]],
                ]),
                "400": problem("A limit out of 1-1000, or an after that is no store id"),
            ]
        )]
        return paths
    }

    /// `operation` of a root route as the same route of the store `{store}`.
    private func inStore(_ operation: JSONValue) -> JSONValue {
        guard case .object(var members) = operation else { return operation }
        if case .string(let id)? = members["operationId"] { members["operationId"] = .string(id + "OfStore") }
        var parameters: [JSONValue] = [pathParameter("store", "The store's id")]
        if case .array(let existing)? = members["parameters"] { parameters += existing }
        members["parameters"] = .array(parameters)
        if case .object(var responses)? = members["responses"] {
            responses["400"] = responses["400"] ?? problem("Not a store id, or a bad request")
            responses["404"] = responses["404"] ?? problem("No such store")
            responses["503"] = responses["503"] ?? problem("The store cannot be loaded now")
            responses["507"] = problem("Creating the store would pass maxStores (autoCreateStores)")
            members["responses"] = .object(responses)
        }
        return .object(members)
    }

    private func pathParameter(_ name: String, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "path", "required": true, "description": .string(description), "schema": ["type": "string"]]
    }
}
