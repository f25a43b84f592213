/// Passes an action on to the next middleware (and finally the reducer). Given to every middleware call.
///
/// `next` may be called at once, later from any thread (asynchronous middleware), more than once
/// (each call reduces again), or never (the action stops there).
public final class Interceptor<Action, State>: Sendable {
    /// Called with the state right after the reduce (a typed middleware receives its mapped substate).
    public typealias Completion = @Sendable (State) -> Void

    private let forward: @Sendable (Action?, Completion?) -> Void
    private let rejection: @Sendable (String) -> Void
    private let leavingUnchanged: @Sendable () -> Void
    /// The store's mappers, so a typed middleware can see its substate.
    let mappings: StateMappings<State>

    /// Creates an interceptor that calls `next` (and `reject`) — for unit tests of a middleware.
    public convenience init(
        next: @escaping @Sendable (Action?, Completion?) -> Void,
        reject: @escaping @Sendable (String) -> Void = { _ in },
        leaveUnchanged: @escaping @Sendable () -> Void = {}
    ) {
        self.init(mappings: .none, next: next, reject: reject, leaveUnchanged: leaveUnchanged)
    }

    init(
        mappings: StateMappings<State>,
        next: @escaping @Sendable (Action?, Completion?) -> Void,
        reject: @escaping @Sendable (String) -> Void,
        leaveUnchanged: @escaping @Sendable () -> Void
    ) {
        self.mappings = mappings
        self.forward = next
        self.rejection = reject
        self.leavingUnchanged = leaveUnchanged
    }

    /// Passes `action` (or, when nil, the current action) to the next middleware or the reducer.
    ///
    /// When the store is idle or this is called from inside the store's processing, the rest of the
    /// chain, the reduce, the observers and the completions have all run when this returns. When another
    /// thread is processing the store, the call is queued and runs, in order, on that thread.
    /// - Parameters:
    ///   - action: a replacement for the current action; later middleware and the reducer see it.
    ///   - completion: called after the reduce and after every observer, innermost middleware first.
    public func next(action: Action? = nil, completion: Completion? = nil) {
        forward(action, completion)
    }

    /// Refuses the current action with a reason a client can read (the service answers 422 with it).
    ///
    /// Not calling ``next(action:completion:)`` is what stops the action; `reject` also says why.
    public func reject(reason: String) {
        rejection(reason)
    }

    /// Ends the current action without a reduce because it would change nothing (a `pop` on a
    /// root screen, a `dismissModal` without a modal): no new version is made, and
    /// ``Store/dispatchAndWait(_:)`` reports ``DispatchOutcome/unchanged(version:)`` (the service
    /// answers `200` with the current version) instead of ``DispatchOutcome/accepted``.
    ///
    /// Like ``reject(reason:)``, it does not stop the action by itself: do not call
    /// ``next(action:completion:)`` for it either.
    public func leaveUnchanged() {
        leavingUnchanged()
    }
}
