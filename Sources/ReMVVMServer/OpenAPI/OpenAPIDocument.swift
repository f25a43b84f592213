/// The OpenAPI 3.1 document of the service (`GET /openapi.json`), generated from its registries
/// and configuration so that it never drifts from what the server does: every route, the
/// registered action types with their payload schemas (inferred from their `Decodable`
/// conformance), the view-model names, and one operation per view-model command with its body
/// schema (`OpenAPIDocument+Commands.swift`).
struct OpenAPIDocument {
    let actions: ActionRegistry
    let viewModelNames: [String]
    /// Every view-model command, each documented as an operation of its own.
    let commands: [Command]
    let metricsEnabled: Bool
    let durable: Bool
    /// Whether tokens are configured: then the document declares the security schemes and the
    /// `401` / `403` answers (see `OpenAPIDocument+Security.swift`).
    let accessControl: Bool
    /// The screens and tabs a navigation has, when the domain registered one: its actions'
    /// payloads then name them (`OpenAPIDocument+Navigation.swift`).
    var navigation: NavigationChoices?

    /// The document as JSON.
    func json() throws -> [UInt8] {
        try JSONCoding.encode(document)
    }

    var document: JSONValue {
        var paths: [String: JSONValue] = [
            "/actions": ["post": postActions, "get": getActions],
            "/state": ["get": getState],
            "/viewmodels": ["get": listViewModels],
            "/viewmodels/{name}": ["get": getViewModel],
            "/viewmodels/{name}/events": ["get": streamViewModel],
            "/viewmodels/events": ["get": streamViewModels],
            "/events": ["get": getEvents],
            "/healthz": ["get": getHealth],
            "/openapi.json": ["get": operation("getOpenAPI", "This document", responses: ["200": json(["type": "object"])])],
        ]
        paths.merge(commandPaths) { documented, _ in documented }
        paths.merge(storeScoped(paths)) { current, _ in current }
        paths.merge(inspectorPaths) { current, _ in current }
        paths.merge(appPaths) { current, _ in current }
        paths.merge(storeManagementPaths) { current, _ in current }
        if metricsEnabled {
            paths["/metrics"] = ["get": operation("getMetrics", "Prometheus metrics", responses: [
                "200": ["description": "Prometheus text format 0.0.4", "content": ["text/plain": ["schema": ["type": "string"]]]],
            ])]
        }
        paths = refusableWhenBusy(paths)
        var document: [String: JSONValue] = [
            "openapi": "3.1.0",
            "info": [
                "title": "ReMVVM Server",
                "version": "1",
                "description": "A ReMVVM store (Redux + MVVM) served over HTTP: dispatch actions, read the state and view models, stream every change.",
            ],
            "paths": .object(paths),
            "components": ["schemas": schemas],
        ]
        if accessControl {
            document["paths"] = .object(secured(paths))
            document["components"] = ["schemas": schemas, "securitySchemes": Self.securitySchemes]
            document["security"] = [["bearer": []]]
        } else {
            document["paths"] = .object(misdirectable(paths))
        }
        return .object(document)
    }

    // MARK: Operations

    /// The answers of a dispatch (`POST /actions` and the commands), by status.
    var dispatchResponses: [String: JSONValue] {
        var responses: [String: JSONValue] = [
            "200": json(ref("VersionAnswer"), "Reduced: the store's version after the last action"),
            "202": json(["type": "object", "properties": ["accepted": ["const": true]], "required": ["accepted"]], "Taken by middleware, not reduced (yet)"),
            "400": problem("Malformed JSON or Idempotency-Key"),
            "409": problem("A request with this Idempotency-Key is still being processed"),
            "412": problem("If-Match names another version"),
            "413": problem("Body over the limit"),
            "415": problem("Not JSON"),
            "422": problem("Unknown action type, a payload that does not decode, a middleware rejection, or an Idempotency-Key used for another request"),
            "500": problem("An action that cannot be journaled"),
        ]
        if durable {
            responses["503"] = problem("The journal cannot make actions durable right now")
        }
        return responses
    }

    /// The `If-Match` and `Idempotency-Key` header parameters of a dispatch.
    var dispatchHeaders: [JSONValue] {
        [
            header("If-Match", "Apply only at this version (a strong ETag, or *)", ["type": "string"]),
            header("Idempotency-Key", "Apply at most once; a retry gets the kept answer", ["type": "string", "pattern": "^[!-~]{1,255}$"]),
        ]
    }

    private var postActions: JSONValue {
        operation(
            "dispatchActions", "Dispatch one action or a batch",
            parameters: dispatchHeaders,
            requestBody: [
                "required": true,
                "content": ["application/json": ["schema": ["oneOf": [ref("Action"), ["type": "array", "items": ref("Action"), "minItems": 1]]]]],
            ],
            responses: .object(dispatchResponses)
        )
    }

    private var getActions: JSONValue {
        operation(
            "getActionLog", "The action log",
            parameters: [
                query("since", "Versions after this one", ["type": "integer", "minimum": 0, "maximum": .unsigned(.max)]),
                query("limit", "At most this many (default 100)", ["type": "integer", "minimum": 1, "maximum": 1_000]),
            ],
            responses: ["200": json(ref("ActionLog")), "400": problem("since or limit out of range")]
        )
    }

    private var getState: JSONValue {
        operation(
            "getState", "The current state",
            parameters: [header("If-None-Match", "The ETag of a state the client has", ["type": "string"])],
            responses: [
                "200": [
                    "description": "The state",
                    "headers": ["ETag": ["schema": ["type": "string"]]],
                    "content": ["application/json": ["schema": [:]]],
                ],
                "304": ["description": "Not modified"],
            ]
        )
    }

    private var listViewModels: JSONValue {
        operation("listViewModels", "The view-model names and their commands", responses: [
            "200": json([
                "type": "object",
                "properties": [
                    "viewModels": ["type": "array", "items": ["type": "string", "enum": .array(viewModelNames.map { .string($0) })]],
                    "commands": commandListSchema,
                ],
                "required": ["viewModels", "commands"],
            ]),
        ])
    }

    private var getViewModel: JSONValue {
        operation(
            "getViewModel", "A view model of the current state",
            parameters: viewModelParameters,
            responses: ["200": json([:], "The view model"), "404": problem("Unknown view model, or none in the current state")]
        )
    }

    /// The names a view-model stream may follow.
    private var viewModelNameSchema: JSONValue {
        ["type": "string", "enum": .array(viewModelNames.map { .string($0) })]
    }

    /// A view model's `{name}` in the path and its `key` in the query.
    private var viewModelParameters: [JSONValue] {
        [
            ["name": "name", "in": "path", "required": true, "schema": ["type": "string"]],
            query("key", "Which instance, for view models made per key", ["type": "string"]),
        ]
    }

    private var resumeParameters: [JSONValue] {
        [
            header("Last-Event-ID", "Resume after this version: only what changed since is sent", ["type": "string"]),
            query("lastEventId", "Resume after this version (the header wins)", ["type": "string"]),
        ]
    }

    private var viewModelEventStream: JSONValue {
        ["description": "An endless event stream", "content": ["text/event-stream": ["schema": ref("ViewModelEvent")]]]
    }

    private var streamViewModel: JSONValue {
        operation(
            "streamViewModel", "Server-sent events: the view model, then an event whenever its JSON changes",
            parameters: viewModelParameters + resumeParameters,
            responses: ["200": viewModelEventStream, "404": problem("Unknown view model")]
        )
    }

    private var streamViewModels: JSONValue {
        operation(
            "streamViewModels",
            "Server-sent events of several view models on one connection (key.<name>=K gives one a key)",
            parameters: [
                [
                    "name": "name", "in": "query", "required": true, "style": "form", "explode": true,
                    // The limit counts names as sent, repeats included (a repeat is followed once).
                    "description": "The view models to follow, in the order of their first events; at most 64 names",
                    "schema": ["type": "array", "items": viewModelNameSchema, "minItems": 1, "maxItems": 64],
                ],
            ] + resumeParameters,
            responses: [
                "200": viewModelEventStream,
                "400": problem("No view model named, or too many"),
                "404": problem("Unknown view model"),
            ]
        )
    }

    private var getEvents: JSONValue {
        operation(
            "streamEvents", "Server-sent events: the state, then one event per reduce",
            parameters: [
                header("Last-Event-ID", "Resume after this version", ["type": "string"]),
                query("lastEventId", "Resume after this version (the header wins)", ["type": "string"]),
                query(
                    "delta", "json-patch: after the first event (the full state), each version as the JSON Patch (RFC 6902) from the one before",
                    ["type": "string", "enum": .array(EventFormat.deltaValues.map { .string($0) })]
                ),
            ],
            responses: [
                "200": [
                    "description": "An endless event stream: state events, or with delta=json-patch a state event then patch events (a state event where the patch would be larger)",
                    "content": ["text/event-stream": ["schema": ["oneOf": [ref("StateEvent"), ref("PatchEvent")]]]],
                ],
                "400": problem("A delta other than json-patch"),
            ]
        )
    }

    private var getHealth: JSONValue {
        let health: JSONValue = [
            "type": "object",
            "properties": [
                "status": ["type": "string", "enum": ["ok", "catching-up", "unavailable", "stopped", "failing"]],
                "version": ["type": "integer"],
                "replica": ["type": "string"],
                "reason": ["type": "string"],
                "stores": [
                    "type": "object",
                    "description": "The loaded stores together (a server of many stores); the fields above are the store default's",
                    "properties": [
                        "loaded": ["type": "integer", "minimum": 1],
                        "unhealthy": ["type": "integer", "minimum": 0],
                        "failing": ["type": "array", "maxItems": .number(Double(StoresHealth.listLimit)), "items": [
                            "type": "object",
                            "properties": ["id": ["type": "string"], "status": ["type": "string"], "reason": ["type": "string"]],
                            "required": ["id", "status"],
                        ]],
                    ],
                    "required": ["loaded", "unhealthy"],
                ],
            ],
            "required": ["status", "version"],
        ]
        return operation("getHealth", "Liveness, and for a replica of a shared log readiness", responses: [
            "200": json(health),
            // A replica not following its log, or a journal whose commits fail, answers its health
            // (application/json); a server at
            // its connection limit or shutting down answers a problem.
            "503": ["description": "Not ready", "content": [
                "application/json": ["schema": health],
                "application/problem+json": ["schema": ref("Problem")],
            ]],
        ])
    }

    // MARK: Schemas

    /// The service's schemas and the inspector's.
    private var schemas: JSONValue {
        guard case .object(let service) = serviceSchemas else { return serviceSchemas }
        return .object(service.merging(Self.inspectorSchemas) { current, _ in current })
    }

    private var serviceSchemas: JSONValue {
        let actionSchemas: [JSONValue] = actions.names.map { name in
            var properties: [String: JSONValue] = ["type": ["const": .string(name)]]
            var required: [JSONValue] = ["type"]
            let payload = navigationPayloadSchema(of: name) ?? actions.payloadSchema(of: name) ?? ["type": "object"]
            // An absent or null payload reads as `{}`: enough for a payload without required fields.
            if case .array(let fields)? = payload["required"], !fields.isEmpty {
                properties["payload"] = payload
                required.append("payload")
            } else {
                properties["payload"] = ["anyOf": [payload, ["type": "null"]]]
            }
            return ["type": "object", "properties": .object(properties), "required": .array(required), "title": .string(name)]
        }
        return [
            "Action": ["oneOf": .array(actionSchemas)],
            // One event of `GET /events`, as OpenAPI 3.1 tools read a `text/event-stream` schema.
            "StateEvent": streamEvent(
                ["const": "state"],
                id: "The version's tag (the version, then -instance in memory)",
                retry: true,
                data: [
                    "version": ["type": "integer", "minimum": 0], "reset": ["const": true],
                    "action": ["type": ["object", "null"]], "state": [:],
                ],
                required: ["version", "action", "state"]
            ),
            // One event of a view-model stream.
            "ViewModelEvent": streamEvent(
                ["enum": ["viewmodel", "unavailable"]],
                id: "The tag of the version that changed the view model; when one version sends several events on the connection, only its last carries the id (an EventSource keeps the previous one)",
                idAlwaysThere: false,
                retry: true,
                data: [
                    "version": ["type": "integer", "minimum": 0], "reset": ["const": true],
                    "name": ["type": "string"], "key": ["type": "string"], "viewModel": [:],
                ],
                required: ["version", "name"]
            ),
            // One patch event of `GET /events?delta=json-patch`.
            "PatchEvent": streamEvent(
                ["const": "patch"],
                id: "The version's tag (the version, then -instance in memory)",
                retry: false,
                data: [
                    "version": ["type": "integer", "minimum": 0],
                    "action": ["type": "object"],
                    "patch": [
                        "type": "array",
                        "description": "RFC 6902 operations that turn the state of the version before into this one's",
                        "items": [
                            "type": "object",
                            "properties": [
                                "op": ["enum": ["add", "remove", "replace", "move", "copy", "test"]],
                                "path": ["type": "string"], "from": ["type": "string"], "value": [:],
                            ],
                            "required": ["op", "path"],
                        ],
                    ],
                ],
                required: ["version", "action", "patch"]
            ),
            "VersionAnswer": ["type": "object", "properties": ["version": ["type": "integer", "minimum": 0]], "required": ["version"]],
            "ActionLog": [
                "type": "object",
                "properties": [
                    "earliest": ["type": ["integer", "null"]],
                    "latest": ["type": "integer"],
                    "actions": ["type": "array", "items": [
                        "type": "object",
                        "properties": [
                            "version": ["type": "integer"], "type": ["type": "string"],
                            "payload": ["type": ["object", "null"]], "time": ["type": "string", "format": "date-time"],
                            "damaged": ["type": "string", "description": "Why the record's payload cannot be shown (it is then null): the journal's record is damaged."],
                        ],
                        "required": ["version", "type", "payload", "time"],
                    ]],
                ],
                "required": ["earliest", "latest", "actions"],
            ],
            "Problem": [
                "type": "object",
                "properties": [
                    "type": ["type": "string"], "title": ["type": "string"], "status": ["type": "integer"],
                    "detail": ["type": "string"], "known": ["type": "array", "items": ["type": "string"]],
                    "field": ["type": "string"], "index": ["type": "integer"], "currentVersion": ["type": "integer"],
                ],
                "required": ["type", "title", "status", "detail"],
            ],
        ]
    }

    // MARK: Helpers

    /// One server-sent event as OpenAPI 3.1 tools read a `text/event-stream` schema: `event`, `id`,
    /// `retry:` where the stream's first event may carry it, and `data` holding one JSON object
    /// with `properties`, of which `required` are always there (`id` too unless `idAlwaysThere`
    /// is false).
    private func streamEvent(
        _ event: JSONValue, id: String, idAlwaysThere: Bool = true, retry: Bool, data properties: JSONValue, required: JSONValue
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "event": event,
            "id": ["type": "string", "description": .string(id)],
            "data": [
                "type": "string", "contentMediaType": "application/json",
                "contentSchema": ["type": "object", "properties": properties, "required": required],
            ],
        ]
        if retry {
            fields["retry"] = ["type": "integer", "minimum": 0, "description": "Reconnect delay in ms, in the first event"]
        }
        return ["type": "object", "properties": .object(fields), "required": idAlwaysThere ? ["event", "id", "data"] : ["event", "data"]]
    }

    func operation(
        _ id: String, _ summary: String, parameters: [JSONValue] = [], requestBody: JSONValue? = nil, responses: JSONValue
    ) -> JSONValue {
        var operation: [String: JSONValue] = ["operationId": .string(id), "summary": .string(summary), "responses": responses]
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        if let requestBody { operation["requestBody"] = requestBody }
        return .object(operation)
    }

    func json(_ schema: JSONValue, _ description: String = "OK") -> JSONValue {
        ["description": .string(description), "content": ["application/json": ["schema": schema]]]
    }

    func problem(_ description: String) -> JSONValue {
        ["description": .string(description), "content": ["application/problem+json": ["schema": ref("Problem")]]]
    }

    func ref(_ name: String) -> JSONValue {
        ["$ref": .string("#/components/schemas/\(name)")]
    }

    func header(_ name: String, _ description: String, _ schema: JSONValue) -> JSONValue {
        ["name": .string(name), "in": "header", "required": false, "description": .string(description), "schema": schema]
    }

    func query(_ name: String, _ description: String, _ schema: JSONValue) -> JSONValue {
        ["name": .string(name), "in": "query", "required": false, "description": .string(description), "schema": schema]
    }
}
