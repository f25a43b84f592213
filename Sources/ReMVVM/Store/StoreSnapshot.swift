/// A state together with its version, read atomically.
public struct StoreSnapshot<State: Sendable>: Sendable {
    /// How many reduces produced this state: 0 for the initial state, then +1 per reduce.
    public let version: UInt64
    /// The state at that version.
    public let state: State
}

/// One reduce, as published to the store's publication handlers, in version order.
public struct StatePublication<State: Sendable>: Sendable {
    /// The version the reduce produced (previous version + 1).
    public let version: UInt64
    /// The action that was reduced (after any replacement by middleware).
    public let action: any StoreAction
    /// The state the reduce produced.
    public let state: State
}
