extension OpenAPIDocument {
    /// The paths every store has, relative to the store (the root ones are the store `default`'s).
    static let storeRoutePaths: Set<String> = [
        "/actions", "/state", "/viewmodels", "/viewmodels/{name}", "/viewmodels/{name}/events", "/viewmodels/events", "/events",
    ]

    /// The store routes of `paths` (and the commands) again under `/stores/{store}`: the same
    /// operations for the store `{store}`, each with the `store` path parameter, an
    /// `operationId` ending in `InStore`, and the answers for a malformed id (`400`) and a store
    /// that does not exist (`404`).
    func storeScoped(_ paths: [String: JSONValue]) -> [String: JSONValue] {
        let scoped = paths.filter { path, _ in Self.storeRoutePaths.contains(path) || path.hasPrefix("/viewmodels/") && path.contains("/commands/") }
        let store = JSONValue.object([
            "name": "store", "in": "path", "required": true,
            "description": "The store's id: 1-128 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or a digit",
            "schema": ["type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$"],
        ])
        var result: [String: JSONValue] = [:]
        for (path, item) in Self.changingOperations(of: scoped, { _, _, members, responses in
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
        }) {
            result["/stores/{store}" + path] = item
        }
        return result
    }
}
