/// A state together with its version, read atomically.
///
/// A class for the reason ``StatePublication`` is one: generic code copies it without looking up
/// its runtime type. Not final: each reduce's ``StatePublication`` is the store's snapshot too,
/// one object per reduce instead of two.
///
/// Unchecked `Sendable` (a non-final class cannot be checked): its stored properties are
/// constants of `Sendable` types, and its one subclass adds only such constants.
public class StoreSnapshot<State: Sendable>: @unchecked Sendable {
    /// How many reduces produced this state: 0 for the initial state, then +1 per reduce.
    public final let version: UInt64
    /// The state at that version.
    public final let state: State

    /// A state and its version (e.g. restored from a journal).
    public init(version: UInt64, state: State) {
        self.version = version
        self.state = state
    }
}

/// One reduce, as published to the store's publication handlers, in version order; also the
/// store's snapshot of the version it made.
///
/// A class, not a struct: it passes through many generic hands per reduce (the journal's gate,
/// the event and view-model hubs, their inboxes), and code not specialized for the domain's state
/// looks up the runtime type of a generic struct at each of them to copy it, where a reference is
/// only retained (about 300 instructions a lookup, seven a reduce: `docs/benchmarks.md`).
public final class StatePublication<State: Sendable>: StoreSnapshot<State>, @unchecked Sendable {
    /// The action that was reduced (after any replacement by middleware).
    public let action: any StoreAction
    /// What the store's reduce check made of ``action`` on the way (``Store/addReduceCheck(handingOn:)``),
    /// or nil: the journal's encoding of its payload, made once.
    public let receipt: ReduceCheckReceipt?

    /// The reduce that produced `state` at `version` from `action` (and `receipt` on the way).
    public init(version: UInt64, action: any StoreAction, state: State, receipt: ReduceCheckReceipt? = nil) {
        self.action = action
        self.receipt = receipt
        super.init(version: version, state: state)
    }
}
