extension OpenAPIDocument {
    /// The paths every store has, relative to the store (the root ones are the store `default`'s).
    static let storeRoutePaths: Set<String> = [
        "/actions", "/state", "/viewmodels", "/viewmodels/{name}", "/viewmodels/{name}/events", "/viewmodels/events", "/events",
    ]

    /// A store id's schema: the rule of `StoreID` (a malformed one is answered `400`).
    static let storeIDSchema: JSONValue = ["type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$"]

    /// The path parameter `{store}` of every store route.
    static let storeParameter: JSONValue = [
        "name": "store", "in": "path", "required": true,
        "description": "The store's id: 1-128 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or a digit",
        "schema": storeIDSchema,
    ]

    /// The store routes of `paths` (and the commands) again under `/stores/{store}`: the same
    /// operations for the store `{store}`, each with the `store` path parameter, an
    /// `operationId` ending in `InStore`, and the answers for a malformed id (`400`) and a store
    /// that does not exist (`404`); a write's also for a creation past `maxStores` (`507`: a read
    /// never creates).
    func storeScoped(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        let scoped = paths.filter { path, _ in Self.storeRoutePaths.contains(path) || path.hasPrefix("/viewmodels/") && path.contains("/commands/") }
        let store = Self.storeParameter
        var result: [String: JSONValue] = [:]
        for (path, item) in Self.changingOperations(of: scoped, { _, method, members, responses in
            if case .string(let id)? = members["operationId"] {
                members["operationId"] = .string(id + "InStore")
            }
            if case .array(let parameters)? = members["parameters"] {
                members["parameters"] = .array([store] + parameters)
            } else {
                members["parameters"] = [store]
            }
            responses["404"] = problem(responses["404"] == nil ? "No such store (store-not-found)" : "No such store (store-not-found), or as at the root")
            responses["400"] = problem(responses["400"] == nil ? "A malformed store id (invalid-store-id)" : "A malformed store id (invalid-store-id), or as at the root")
            responses["503"] = responses["503"] ?? problem("The store cannot be loaded now")
            if method == "post" {
                responses["507"] = problem("Creating the store would pass maxStores (autoCreateStores)")
            }
        }) {
            result["/stores/{store}" + path] = item
        }
        return result
    }

    /// The management routes: `PUT`, `GET`, `DELETE /stores/{store}` and `GET /stores`.
    var storeManagementPaths: [String: JSONValue] {
        var paths: [String: JSONValue] = [:]
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
        let store = Self.storeParameter
        var created = json(description, "Created")
        if case .object(var fields) = created {
            fields["headers"] = ["Location": ["description": "The store's path, /stores/{store}", "schema": ["type": "string"]]]
            created = .object(fields)
        }
        let unavailable = problem("The catalog of stores or the store cannot be reached now (store-unavailable; Retry-After)")
        paths["/stores/{store}"] = [
            "put": operation("putStore", "Create a store", parameters: [store, header("If-None-Match", "* to create only", ["type": "string"])], responses: [
                "200": json(description, "It exists"),
                "201": created,
                "400": problem("Not a store id"),
                "412": problem("It exists (If-None-Match: *)"),
                "503": unavailable,
                "507": problem("maxStores reached"),
            ]),
            "get": operation("getStore", "Describe a store", parameters: [store], responses: [
                "200": json(description),
                "400": problem("Not a store id"),
                "404": problem("No such store"),
                "503": unavailable,
            ]),
            "delete": operation("deleteStore", "Delete a store, its streams, records and snapshots", parameters: [store], responses: [
                "204": ["description": "Deleted"],
                "400": problem("Not a store id"),
                "404": problem("No such store"),
                "405": problem("The store default cannot be deleted"),
                "503": unavailable,
            ]),
        ]
        paths["/stores"] = ["get": operation(
            "listStores", "List stores by id",
            parameters: [
                query("prefix", "Only ids starting with it", ["type": "string"]),
                query("after", "Only ids after it (the previous page's next)", Self.storeIDSchema),
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
}
