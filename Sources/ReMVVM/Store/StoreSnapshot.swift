/// A state together with its version, read atomically.
public struct StoreSnapshot<State: Sendable>: Sendable {
    /// How many reduces produced this state: 0 for the initial state, then +1 per reduce.
    public let version: UInt64
    /// The state at that version.
    public let state: State

    /// A state and its version (e.g. restored from a journal).
    public init(version: UInt64, state: State) {
        self.version = version
        self.state = state
    }
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
