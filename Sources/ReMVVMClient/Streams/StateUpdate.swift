public import JSONPatch

/// One version of the store's state as the event stream delivers it, untyped: the state as JSON
/// (numbers as the server wrote them) in a ``StateUpdate``.
public typealias StateEvent = StateUpdate<JSON>

/// One version of the store's state: the state (the app's type, or JSON in a ``StateEvent``), the
/// action that made it, and whether it is a reset.
public struct StateUpdate<State: Sendable>: Sendable {
    /// The store's version.
    public var version: UInt64
    /// The version's tag (the event id), for `If-Match` and for resuming.
    public var tag: VersionTag
    /// True when the server could not resume where the client left off (the versions in between
    /// are lost to it): the state replaces whatever the client had, and the version may be lower
    /// than the one before (an in-memory server that restarted).
    public var isReset: Bool
    /// The whole state at this version.
    public var state: State
    /// The action that made this version, as a client would post it; nil for the version that was
    /// current when the server started.
    public var action: JSON?

    /// Creates an update.
    public init(version: UInt64, tag: VersionTag, isReset: Bool, action: JSON? = nil, state: State) {
        self.version = version
        self.tag = tag
        self.isReset = isReset
        self.state = state
        self.action = action
    }
}
