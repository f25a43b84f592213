public import ReMVVM

/// The wire names of the app's actions, as the server's `ActionRegistry` registers them: the client
/// sends `{"type": <name>, "payload": <the action encoded>}`.
///
/// ```swift
/// var actions = ActionNames()
/// actions.register(Increase.self, as: "increase")
/// ```
public struct ActionNames: Sendable {
    private var names: [ObjectIdentifier: String] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Sends actions of `type` under `name`.
    public mutating func register<Action: StoreAction & Encodable>(_ type: Action.Type, as name: String) {
        names[ObjectIdentifier(type)] = name
    }

    /// The wire name of `action`'s type, nil when it was never registered.
    public func name(of action: any StoreAction) -> String? {
        names[ObjectIdentifier(type(of: action))]
    }
}
