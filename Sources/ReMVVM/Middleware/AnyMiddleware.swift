/// Middleware that sees every action and the root state: the untyped form.
///
/// Middleware runs in the order given to the store. Each call either passes the action on with
/// `interceptor.next`, replaces it (`next(action:)`), stops it (never calls `next`), or converts it
/// (dispatches another action with `dispatcher` and never calls `next`).
///
/// The store calls middleware from whichever thread is processing it, one call at a time, never
/// concurrently; state a middleware keeps needs no lock unless the middleware shares it elsewhere.
public protocol AnyMiddleware {
    /// Called for every dispatched action, with the root state current at that moment.
    func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    )
}
