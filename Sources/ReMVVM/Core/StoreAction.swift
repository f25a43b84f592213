/// Marker for every action that can be dispatched into a ``Store``.
///
/// Actions cross threads (an HTTP worker dispatches, another thread may reduce), so they are `Sendable`.
/// Actions that arrive over HTTP are also `Decodable` and registered under a wire name by the service.
public protocol StoreAction: Sendable {}

/// The identity of `action`'s own type (its dynamic type: an instance of a class held as its
/// superclass is its own class), what rule 11 compares (a reducer, a middleware's filter, a
/// registry keyed by type).
///
/// `ObjectIdentifier(type(of: action))` asks the runtime for the dynamic type of every existential
/// (`swift_getDynamicType`, about 50 instructions; a durable `POST` asked six times). The existential
/// is opened instead: a value's type is the type it is held as, and only a class instance's is
/// asked of the runtime.
@inlinable
public func actionTypeIdentifier(of action: any StoreAction) -> ObjectIdentifier {
    openedActionTypeIdentifier(action)
}

@inlinable
func openedActionTypeIdentifier<Action: StoreAction>(_ action: Action) -> ObjectIdentifier {
    if Action.self is AnyObject.Type {
        return ObjectIdentifier(type(of: action))
    }
    return ObjectIdentifier(Action.self)
}
