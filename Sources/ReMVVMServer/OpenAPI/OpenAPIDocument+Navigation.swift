import ReMVVMNavigation

/// The screens and tabs of a domain's navigation, for the document.
struct NavigationChoices {
    /// The screens `navigation.push` and `navigation.showModal` may name (`NavigationMiddleware`
    /// refuses any other with `422`).
    let screens: [String]
    /// The tabs `navigation.selectTab` may name.
    let tabs: [String]
}

extension OpenAPIDocument {
    /// The payload schema of the navigation action registered as `name`, with the screen or tab
    /// it names limited to those the navigation has (a client reads which it may send, and a
    /// request valid by the document is never refused for naming one); nil for any other action,
    /// or without a navigation.
    func navigationPayloadSchema(of name: String) -> JSONValue? {
        guard let navigation, let type = actions.entry(named: name)?.payloadType else { return nil }
        let field: String
        let choices: [String]
        switch type {
        case is Push.Type, is ShowModal.Type: (field, choices) = ("screen", navigation.screens)
        case is SelectTab.Type: (field, choices) = ("tab", navigation.tabs)
        default: return nil
        }
        // Only a navigation action's schema is inferred here; any other is inferred once, by the caller.
        guard case .object(var payload)? = actions.payloadSchema(of: name), case .object(var properties)? = payload["properties"] else {
            return nil
        }
        properties[field] = ["type": "string", "enum": .array(choices.sorted().map { .string($0) })]
        payload["properties"] = .object(properties)
        return .object(payload)
    }
}
