/// Two reducers of the same state run one after the other: `First`, then `Second`.
///
/// Built with ``Reducer/compose(with:)``:
/// ```swift
/// enum CounterReducer: Reducer {
///     static let composed = IncreaseReducer.compose(with: DecreaseReducer.self)
///     static func reduce(state: Int, with action: any StoreAction) -> Int {
///         composed.reduce(state: state, with: action)
///     }
/// }
/// ```
public enum ComposedReducer<First: Reducer, Second: Reducer>: Reducer where First.State == Second.State {
    /// Applies `First` then `Second`, each only if the action is exactly its action type.
    /// Inlinable: specialized for the concrete reducers where the composition is used.
    @inlinable
    public static func reduce(state: First.State, with action: any StoreAction) -> First.State {
        // One copy of the state, changed in place by the reducer the action is for: a reducer
        // that passes returned its unchanged state as another copy (retains of its references).
        var state = state
        First.reduce(into: &state, withAny: action)
        Second.reduce(into: &state, withAny: action)
        return state
    }
}
