/// A pure function that makes a new state from the current state and one type of action.
///
/// A reducer fires only for its exact action type (a subclass instance does not match); use
/// ``compose(with:)`` to handle several action types on the same state.
public protocol Reducer {
    /// The state this reducer produces.
    associatedtype State
    /// The one action type this reducer handles; `any StoreAction` handles every action.
    associatedtype Action

    /// Returns the state that results from applying `action` to `state`. Must be pure.
    static func reduce(state: State, with action: Action) -> State
}

extension Reducer {
    /// Applies `action` if it is exactly of type `Action` (or `Action` is `any StoreAction`);
    /// returns `state` unchanged otherwise. Inlinable, so that a composition of concrete
    /// reducers is specialized where it is used: unspecialized, each call looks up generic
    /// metadata at run time.
    @inlinable
    public static func reduce(state: State, withAny action: any StoreAction) -> State {
        if Action.self == (any StoreAction).self, let erased = action as? Action {
            return reduce(state: state, with: erased)
        }
        guard ObjectIdentifier(type(of: action)) == ObjectIdentifier(Action.self),
              let typed = action as? Action
        else { return state }
        return reduce(state: state, with: typed)
    }

    /// A reducer that runs this reducer, then `other`, on the same state type.
    public static func compose<Other: Reducer>(with other: Other.Type) -> ComposedReducer<Self, Other>.Type
    where Other.State == State {
        ComposedReducer<Self, Other>.self
    }
}
