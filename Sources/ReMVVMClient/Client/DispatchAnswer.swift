/// What the server did with a dispatch or a command.
public enum DispatchAnswer: Sendable, Equatable {
    /// Reduced: the store's version right after the last action (`200 {"version": N}`).
    case applied(version: UInt64)
    /// Taken by middleware but not reduced (yet) (`202 {"accepted": true}`).
    case accepted

    /// The version of an applied dispatch, nil when it was only accepted.
    public var version: UInt64? {
        if case .applied(let version) = self { return version }
        return nil
    }
}
