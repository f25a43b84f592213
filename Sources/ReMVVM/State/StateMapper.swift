/// Maps the root state to one substate type, so that typed middleware and observers can work on that substate.
///
/// ```swift
/// let mappers = [
///     StateMapper<AppState>(for: \.counter),
///     StateMapper<AppState> { $0.user },
/// ]
/// ```
/// A store accepts at most one mapper per substate type (see ``StoreConfigurationError``).
public struct StateMapper<State>: Sendable {
    /// Identity of the substate type this mapper produces.
    let targetType: ObjectIdentifier
    /// Readable name of the substate type, for error messages.
    let targetTypeName: String
    private let transform: @Sendable (State) -> Any

    /// Creates a mapper from a pure closure.
    public init<Substate>(map: @escaping @Sendable (State) -> Substate) {
        targetType = ObjectIdentifier(Substate.self)
        targetTypeName = String(reflecting: Substate.self)
        transform = { map($0) }
    }

    /// Creates a mapper that reads a property of the root state.
    public init<Substate>(for keyPath: any KeyPath<State, Substate> & Sendable) {
        self.init { $0[keyPath: keyPath] }
    }

    /// Whether this mapper produces values of `type`.
    func produces<Substate>(_ type: Substate.Type) -> Bool {
        targetType == ObjectIdentifier(type)
    }

    /// The substate of `state`, if this mapper produces `Substate`.
    func map<Substate>(_ state: State) -> Substate? {
        guard produces(Substate.self) else { return nil }
        return transform(state) as? Substate
    }
}
