import Foundation

extension OpenAPIDocument {
    /// One view-model command, as the document describes it.
    struct Command {
        /// The view model's registered name.
        let viewModel: String
        /// The command's name.
        let name: String
        /// The type its body decodes into; the schema is inferred from it.
        let bodyType: any Decodable.Type
    }

    /// `POST /viewmodels/<name>/commands/<command>` for every command: one operation each, at its
    /// literal path, so that its body has its own schema (the router serves them all through
    /// the one pattern `/viewmodels/:name/commands/:command`).
    var commandPaths: [String: JSONValue] {
        var paths: [String: JSONValue] = [:]
        for command in commands {
            paths[Self.commandPath(viewModel: command.viewModel, command: command.name)] = ["post": operation(for: command)]
        }
        return paths
    }

    /// The document path of a command: its names percent-encoded where a path template or a
    /// path segment could not hold them.
    static func commandPath(viewModel: String, command: String) -> String {
        "/viewmodels/\(segment(viewModel))/commands/\(segment(command))"
    }

    /// `GET /viewmodels`' `commands`: each view model's command names.
    var commandListSchema: JSONValue {
        var properties: [String: JSONValue] = [:]
        for name in viewModelNames {
            let names = commands.filter { $0.viewModel == name }.map { JSONValue.string($0.name) }
            properties[name] = names.isEmpty
                ? ["type": "array", "maxItems": 0]
                : ["type": "array", "items": ["type": "string", "enum": .array(names)]]
        }
        return [
            "type": "object",
            "description": "The command names of each view model",
            "properties": .object(properties),
            "required": .array(viewModelNames.map { .string($0) }),
            "additionalProperties": false,
        ]
    }

    private func operation(for command: Command) -> JSONValue {
        let schema = SchemaInference.schema(of: command.bodyType) ?? ["type": "object"]
        var bodyIsRequired = false
        if case .array(let fields)? = schema["required"], !fields.isEmpty {
            bodyIsRequired = true
        }
        var responses = dispatchResponses
        responses["404"] = problem("The view model is not available in the current state (for this key)")
        responses["422"] = problem("A body that does not decode, a rejection by the command or a middleware, or an Idempotency-Key used for another request")
        responses["500"] = problem("The command produced an action without a wire name, which cannot be journaled")
        return operation(
            "command.\(command.viewModel).\(command.name)",
            "Command \(command.name) of view model \(command.viewModel)",
            parameters: [query("key", "Which instance, for view models made per key", ["type": "string"])] + dispatchHeaders,
            requestBody: [
                // Without required fields the body may be left out (read as {}).
                "required": .bool(bodyIsRequired),
                "content": ["application/json": ["schema": schema]],
            ],
            responses: .object(responses)
        )
    }

    private static func segment(_ name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/{}%")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }
}
