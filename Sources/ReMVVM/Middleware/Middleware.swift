/// Middleware typed on one action type and one (sub)state type.
///
/// It is called only for actions of its `Action` type (others pass straight through) and receives the
/// substate produced by the store's ``StateMapper`` for `State`. Building a store with a typed middleware
/// whose `State` no mapper produces throws ``StoreConfigurationError``.
///
/// ```swift
/// struct OnlyWhenLoggedOut: Middleware {
///     func onNext(for state: User?, action: Login, interceptor: Interceptor<Login, User?>, dispatcher: any Dispatcher) {
///         guard state == nil else { return interceptor.reject(reason: "already logged in") }
///         interceptor.next()
///     }
/// }
/// ```
public protocol Middleware: AnyMiddleware {
    /// The action type this middleware handles; `any StoreAction` handles every action.
    associatedtype Action
    /// The state type it sees: the root state or a mapped substate.
    associatedtype State

    /// Called for each action of type `Action`, with the current (mapped) state.
    func onNext(for state: State, action: Action, interceptor: Interceptor<Action, State>, dispatcher: any Dispatcher)
}

extension Middleware {
    /// The actions of its `Action` type: others are passed over without calling it.
    public func handles(_ action: any StoreAction) -> Bool {
        action is Action
    }

    /// Every action for `any StoreAction`; for a struct or enum `Action` that type exactly (what
    /// `is Action` answers for it, without the runtime's dynamic cast on every dispatch);
    /// otherwise (a class, whose subclasses count, or a protocol) ``handles(_:)`` is asked.
    public var actionFilter: MiddlewareActionFilter {
        if Action.self == (any StoreAction).self { return .everyAction }
        if !(Action.self is AnyObject.Type), Action.self is any StoreAction.Type {
            return .exactType(ObjectIdentifier(Action.self))
        }
        return .asked
    }

    /// Adapts the typed middleware to the untyped chain: filters the action type and maps the state.
    public func onNext<Root>(
        for state: Root,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, Root>,
        dispatcher: any Dispatcher
    ) {
        let mappings = interceptor.mappings
        guard let typedAction = action as? Action,
              let typedState = mappings.map(state, to: State.self)
        else {
            interceptor.next()
            return
        }
        let typedInterceptor = Interceptor<Action, State>(
            mappings: .none,
            next: { replacement, completion in
                interceptor.next(
                    action: replacement.map(storeAction(from:)),
                    completion: rootCompletion(completion, mappings: mappings)
                )
            },
            reject: { interceptor.reject(reason: $0) },
            leaveUnchanged: { interceptor.leaveUnchanged() }
        )
        onNext(for: typedState, action: typedAction, interceptor: typedInterceptor, dispatcher: dispatcher)
    }
}

/// Wraps a completion on a substate into one on the root state.
private func rootCompletion<Root, Substate>(
    _ completion: (@Sendable (Substate) -> Void)?,
    mappings: StateMappings<Root>
) -> (@Sendable (Root) -> Void)? {
    guard let completion else { return nil }
    return { root in
        if let substate = mappings.map(root, to: Substate.self) { completion(substate) }
    }
}

/// A typed middleware's replacement action, as the store sees it.
private func storeAction<Action>(from action: Action) -> any StoreAction {
    guard let storeAction = action as? any StoreAction else {
        // Only reachable if a middleware declares an Action type that is not a StoreAction; such a
        // middleware never receives an action, so it has nothing to replace. A programming error.
        preconditionFailure("replacement action \(action) is not a StoreAction")
    }
    return storeAction
}

/// The state type a typed middleware works on, or nil for an untyped one.
func middlewareStateCheck<Root>(_ middleware: any AnyMiddleware) -> ((Root, StateMappings<Root>) -> Bool, String)? {
    guard let typed = middleware as? any Middleware else { return nil }
    return stateCheck(of: typed)
}

private func stateCheck<Root, M: Middleware>(of middleware: M) -> ((Root, StateMappings<Root>) -> Bool, String) {
    ({ sample, mappings in mappings.canMap(sample, to: M.State.self) }, String(reflecting: M.State.self))
}
