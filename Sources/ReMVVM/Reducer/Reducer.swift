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
        // A reducer of every action (a domain's top reducer, a composition) returns its new
        // state directly; the copy made for the in-place path would be one more per action.
        if Action.self == (any StoreAction).self {
            // Cannot fail: `Action` is `any StoreAction` itself.
            return reduce(state: state, with: action as! Action)
        }
        var state = state
        reduce(into: &state, ifExactly: action)
        return state
    }

    /// Applies `action` to `state` in place if it is exactly of type `Action` (or `Action` is
    /// `any StoreAction`); leaves it as it is otherwise — without the copy that returning an
    /// unchanged state makes (``ComposedReducer`` runs its reducers on one state this way).
    @inlinable
    @inline(__always)
    static func reduce(into state: inout State, withAny action: any StoreAction) {
        // `as!`, not `as?`: each is checked to succeed just before, and a conditional cast would
        // look up the metadata of `Optional<Action>` at run time on every call, matching or not.
        if Action.self == (any StoreAction).self {
            // Cannot fail: `Action` is `any StoreAction` itself.
            state = reduce(state: state, with: action as! Action)
            return
        }
        reduce(into: &state, ifExactly: action)
    }

    /// ``reduce(into:withAny:)`` with the existential opened, always inlined where the reducer
    /// is specialized: `Opened` is then compared with `Action` as metadata, and the value taken
    /// as `Action` in place.
    @inlinable
    @inline(__always)
    static func reduce<Opened: StoreAction>(into state: inout State, ifExactly action: Opened) {
        guard Opened.self == Action.self else {
            // An instance of the class `Action` held as its superclass: only its dynamic type
            // tells (a value's type is the type the existential holds it as).
            if Action.self is AnyObject.Type, ObjectIdentifier(type(of: action)) == ObjectIdentifier(Action.self) {
                state = reduce(state: state, with: action as! Action)
            }
            return
        }
        // A subclass instance held as `Action` is not one: a reducer fires for its exact type.
        if Action.self is AnyObject.Type, ObjectIdentifier(type(of: action)) != ObjectIdentifier(Action.self) {
            return
        }
        // Exactly `Action`: `as!` would go through the runtime's dynamic cast (about 700
        // instructions a reduced action).
        state = reduce(state: state, with: unsafeBitCast(action, to: Action.self))
    }

    /// A reducer that runs this reducer, then `other`, on the same state type.
    public static func compose<Other: Reducer>(with other: Other.Type) -> ComposedReducer<Self, Other>.Type
    where Other.State == State {
        ComposedReducer<Self, Other>.self
    }
}
