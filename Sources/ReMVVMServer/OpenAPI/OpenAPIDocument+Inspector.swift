extension OpenAPIDocument {
    /// The inspector's routes (`docs/http-api.md`, "Inspector"): the page and its files (open
    /// without a token), `GET /stats` and `GET /access`.
    var inspectorPaths: [String: JSONValue] {
        let summary = "The inspector: a live page of the state, the action log, dispatch and health"
        return paths(of: PageRoutes(page: InspectorAssets.self, operation: "Inspector", summary: summary, name: "the inspector page", owner: "the inspector's")).merging([
            "/stats": ["get": operation(
                "getStats", "Health at a glance: version, server time, subscribers, process figures",
                responses: ["200": json(ref("Stats"))]
            )],
            AccessGate.accessPath: ["get": operation(
                "getAccess", "What the caller's token allows (any valid token may ask)",
                responses: ["200": json(ref("Access"))]
            )],
        ]) { page, _ in page }
    }

    /// Open event streams by kind (`/events`, view-model streams).
    private static func subscribersSchema(_ description: String) -> JSONValue {
        [
            "type": "object",
            "description": .string(description),
            "properties": ["events": ["type": "integer", "minimum": 0], "viewModels": ["type": "integer", "minimum": 0]],
            "required": ["events", "viewModels"],
        ]
    }

    /// The schemas of `GET /stats` and `GET /access`.
    static let inspectorSchemas: [String: JSONValue] = [
        "Stats": [
            "type": "object",
            "properties": [
                "version": ["type": "integer", "minimum": 0],
                "time": ["type": "string", "format": "date-time", "description": "The server's clock, with milliseconds"],
                "subscribers": subscribersSchema("The store default's open streams"),
                "process": [
                    "type": ["object", "null"],
                    "properties": [
                        "residentMemoryBytes": ["type": "number"], "cpuSeconds": ["type": "number"],
                        "openDescriptors": ["type": "number"], "startedAt": ["type": "string", "format": "date-time"],
                    ],
                    "required": ["residentMemoryBytes", "cpuSeconds", "openDescriptors", "startedAt"],
                ],
                "stores": [
                    "type": "object",
                    "description": "The loaded stores together (a server of many stores)",
                    "properties": [
                        "loaded": ["type": "integer", "minimum": 1], "unhealthy": ["type": "integer", "minimum": 0],
                        "maxLagVersions": ["type": "integer", "minimum": 0],
                        "subscribers": subscribersSchema("The open streams of every loaded store"),
                    ],
                    "required": ["loaded", "unhealthy", "maxLagVersions", "subscribers"],
                ],
            ],
            "required": ["version", "time", "subscribers"],
        ],
        "Access": [
            "type": "object",
            "properties": [
                "accessControl": ["type": "boolean", "description": "Whether tokens are configured"],
                "scopes": ["type": "array", "items": ["enum": ["read", "dispatch", "manage"]], "description": "What the token grants (everything without tokens)"],
                "stores": ["type": "array", "items": ["type": "string"], "description": "The store ids and prefixes (room-*) the token reaches: [\"*\"] for every store, [] for none"],
            ],
            "required": ["accessControl", "scopes", "stores"],
        ],
    ]
}
