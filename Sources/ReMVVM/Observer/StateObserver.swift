/// Observes a store's state, or one substate of it, before and after every reduce.
///
/// Observers are held weakly: keep a reference, or the observer is dropped. The store calls observers
/// from whichever thread is processing it, one call at a time; an observer of a substate receives the
/// mapped state, and an observer of a type the store cannot produce is never called.
public protocol StateObserver: AnyObject {
    /// The state (or substate) this observer receives.
    associatedtype State

    /// Called with the current state just before a reduce. Default: does nothing.
    func willReduce(state: State)

    /// Called with the new and the previous state after a reduce; `oldState` is nil for the call made
    /// when the observer is added.
    func didReduce(state: State, oldState: State?)
}

extension StateObserver {
    /// Does nothing: most observers only care about the new state.
    public func willReduce(state: State) {}
}
