/// Which actions a middleware sees (``AnyMiddleware/actionFilter``), told once when a store is
/// made, so that passing over a middleware an action is not for costs no dynamic cast.
public enum MiddlewareActionFilter: Sendable, Equatable {
    /// Every action.
    case everyAction
    /// The actions of exactly this type (a struct or enum: no other type's instance is one).
    case exactType(ObjectIdentifier)
    /// Whatever ``AnyMiddleware/handles(_:)`` answers for each action.
    case asked

    /// Whether `action` passes for `middleware`, whose filter this is.
    @inlinable
    public func admits(_ action: any StoreAction, to middleware: any AnyMiddleware) -> Bool {
        switch self {
        case .everyAction: true
        case .exactType(let type): actionTypeIdentifier(of: action) == type
        case .asked: middleware.handles(action)
        }
    }
}
