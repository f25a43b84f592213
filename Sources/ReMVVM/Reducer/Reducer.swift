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
        // `as!`, not `as?`: each is checked to succeed just before, and a conditional cast would
        // look up the metadata of `Optional<Action>` at run time on every call, matching or not.
        if Action.self == (any StoreAction).self {
            // Cannot fail: `Action` is `any StoreAction` itself.
            return reduce(state: state, with: action as! Action)
        }
        // A value's type is the type the existential holds it as: its opened type, compared as
        // metadata. An instance of a class may be held as its superclass, so only the dynamic
        // type tells (a runtime call, about 50 instructions); which of the two applies is known
        // where the reducer is specialized (`Action` a class or not).
        if Action.self is AnyObject.Type {
            guard ObjectIdentifier(type(of: action)) == ObjectIdentifier(Action.self) else { return state }
        } else {
            guard isExactlyAction(action) else { return state }
        }
        // The existential opened and its value taken as `Action`, which it is exactly: `as!`
        // went through the runtime's dynamic cast (about 700 instructions a reduced action).
        return reduce(state: state, with: exactAction(action))
    }

    /// Whether the existential holds `action` as `Action` itself (for `Action` not a class: then
    /// exactly when the value is one).
    @inlinable
    static func isExactlyAction<Opened: StoreAction>(_ action: Opened) -> Bool {
        Opened.self == Action.self
    }

    /// `action` as `Action`, which its dynamic type must be exactly (checked by the caller).
    @inlinable
    static func exactAction<Opened: StoreAction>(_ action: Opened) -> Action {
        if Opened.self == Action.self {
            return unsafeBitCast(action, to: Action.self)
        }
        // An instance of the class `Action` held as its superclass: the runtime's cast.
        return action as! Action
    }

    /// A reducer that runs this reducer, then `other`, on the same state type.
    public static func compose<Other: Reducer>(with other: Other.Type) -> ComposedReducer<Self, Other>.Type
    where Other.State == State {
        ComposedReducer<Self, Other>.self
    }
}
