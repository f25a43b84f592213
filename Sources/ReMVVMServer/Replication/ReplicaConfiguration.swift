public import Journal

/// Makes a service one replica of a store shared by several servers (`docs/replicas.md`): the
/// actions go to one totally ordered log that every replica applies in the same order.
public struct ReplicaConfiguration: Sendable {
    /// The shared log (`PostgresJournal.PostgresSharedLog`).
    public var log: any SharedLog
    /// This replica's own storage, for its snapshots only (a SQLite file in its data directory):
    /// a restart applies the log from the newest one instead of from version 0.
    public var snapshots: any JournalStorage
    /// The replica's name, for logs and `/healthz` (`replicaName`), and the key of its
    /// registration in the shared log (retention keeps the records its snapshot needs).
    public var name: String
    /// How long a replica's registration holds records back once it is no longer renewed
    /// (`replicaExpiry`): then the replica counts as gone, and retention forgets it. Nil: never.
    public var expiry: Duration?
    /// How often a running replica renews its registration; by default
    /// ``renewal(forExpiry:)`` of ``expiry``.
    public var renewal: Duration

    /// A quarter of `expiry`, but at least once a minute and at most once a second; once a
    /// minute when registrations never expire.
    public static func renewal(forExpiry expiry: Duration?) -> Duration {
        guard let expiry else { return .seconds(60) }
        return min(.seconds(60), max(.seconds(1), expiry / 4))
    }

    /// The default ``expiry``: a week, like Kafka's `offsets.retention.minutes`. A replica down for
    /// longer restarts from another replica's data directory.
    public static let defaultExpiry = Duration.seconds(7 * 86_400)

    /// The ``expiry`` the `replicaExpiry` setting allows: from a minute (four renewals fit in
    /// it), up to a century.
    public static let allowedExpiry = Duration.seconds(60) ... .seconds(100 * 365 * 86_400)

    /// Creates a replica configuration. `expiry` must leave room for renewals (the
    /// `replicaExpiry` setting allows ``allowedExpiry``).
    public init(
        log: any SharedLog, snapshots: any JournalStorage, name: String,
        expiry: Duration? = defaultExpiry, renewal: Duration? = nil
    ) {
        self.log = log
        self.snapshots = snapshots
        self.name = name
        self.expiry = expiry
        self.renewal = renewal ?? Self.renewal(forExpiry: expiry)
    }

    /// Throws when ``renewal`` cannot keep the registration alive: it must be positive and, when
    /// registrations expire, at most half of ``expiry`` (a replica that missed one renewal would
    /// otherwise count as gone, and retention would remove the records its snapshot needs).
    public func validate() throws(ServiceConfigurationError) {
        guard renewal > .zero else {
            throw ServiceConfigurationError(property: "renewal", message: "renewal must be positive, not \(renewal)")
        }
        if let expiry, renewal > expiry / 2 {
            throw ServiceConfigurationError(
                property: "renewal",
                message: "renewal (\(renewal)) must be at most half of expiry (\(expiry)): a replica that missed one renewal would count as gone"
            )
        }
    }
}
