public import Journal

/// The follower of the store `default` alone: the shape of a follower of a one-store log.
extension PostgresLogFollower {
    /// A follower of the store `default` from `applied`
    /// (``follow(_:applied:onStatus:verify:apply:)``); `verify` hears the log's identity (the
    /// store `default`'s incarnation).
    public convenience init(
        conninfo: String, applied: UInt64, pageSize: Int = 1_000, pollInterval: Duration = .seconds(1),
        onStatus: @escaping @Sendable (Status) -> Void = { _ in },
        verify: @escaping @Sendable (_ identity: String, _ head: UInt64) throws -> Void = { _, _ in },
        apply: @escaping @Sendable ([LogEntry]) throws -> Void
    ) {
        self.init(conninfo: conninfo, pageSize: pageSize, pollInterval: pollInterval)
        follow(.default, applied: applied, onStatus: onStatus, verify: verify, apply: apply)
    }

    /// The last version of `default` applied.
    public var applied: UInt64 { applied(of: .default) }

    /// Where the follower stands for `default`.
    public var status: Status { status(of: .default) }

    /// ``waitUntilApplied(_:of:timeout:)`` for `default`.
    public func waitUntilApplied(_ version: UInt64, timeout: Duration) -> Bool {
        waitUntilApplied(version, of: .default, timeout: timeout)
    }

    /// ``offer(_:entries:)`` for `default`.
    public func offer(_ entries: [LogEntry]) {
        offer(.default, entries: entries)
    }
}
