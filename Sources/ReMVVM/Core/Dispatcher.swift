/// Starts a new dispatch of an action from the first middleware.
public protocol Dispatcher: Sendable {
    /// Dispatches `action` through every middleware and, if they all pass it on, the reducer.
    func dispatch(action: any StoreAction)
}
