/// Middleware that sees every action and the root state: the untyped form.
///
/// Middleware runs in the order given to the store. Each call either passes the action on with
/// `interceptor.next`, replaces it (`next(action:)`), stops it (never calls `next`), or converts it
/// (dispatches another action with `dispatcher` and never calls `next`).
///
/// The store calls middleware from whichever thread is processing it, one call at a time, never
/// concurrently; state a middleware keeps needs no lock unless the middleware shares it elsewhere.
public protocol AnyMiddleware {
    /// Called for every dispatched action it ``handles(_:)``, with the root state current at that
    /// moment.
    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    )

    /// Whether ``onNext(for:action:interceptor:dispatcher:)`` wants to see `action`. One it does not
    /// is passed over as if it had called `interceptor.next()` at once, and costs nothing more: a
    /// middleware for a few action types (navigation, login) does not add its step to every other
    /// action. Default: every action (a typed ``Middleware``: the actions of its `Action` type).
    func handles(_ action: any StoreAction) -> Bool

    /// Which actions ``handles(_:)`` admits, when a store can tell without asking it each time
    /// (read once, when the store is made). Default: ``MiddlewareActionFilter/asked``; a typed
    /// ``Middleware`` of a struct or enum action type: that type exactly.
    var actionFilter: MiddlewareActionFilter { get }
}

extension AnyMiddleware {
    /// Every action.
    public func handles(_ action: any StoreAction) -> Bool { true }

    /// Asks ``handles(_:)``.
    public var actionFilter: MiddlewareActionFilter { .asked }
}
