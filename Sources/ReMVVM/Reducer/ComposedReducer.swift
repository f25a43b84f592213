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
        let intermediate = First.reduce(state: state, withAny: action)
        return Second.reduce(state: intermediate, withAny: action)
    }
}
