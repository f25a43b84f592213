/// Settings of the service layer (the HTTP layer has its own `HTTPServerConfiguration`, in `MicroHTTP`).
public struct ServiceConfiguration: Sendable, Equatable {
    /// The most bytes of events a subscriber may fall behind before it is disconnected; it then
    /// reconnects and starts again from the current state. Default 1 MiB.
    public var subscriberBacklogBytes: Int = 1 << 20
    /// How far event publishing may fall behind the store, in bytes of events waiting to be sent
    /// (estimated from the size of recent events). Past it, the waiting versions are dropped and the
    /// subscribers disconnected, to restart from the current state, so memory stays bounded even when
    /// reduces outpace encoding (very large states). At least 64 versions may always wait. Default 64 MiB.
    public var eventLagBudgetBytes: Int = 64 << 20

    /// How long a disconnected event subscriber waits before it reconnects: sent as `retry:` in
    /// the first event of every stream. Default 1 s.
    public var reconnectDelay: Duration = .seconds(1)

    /// With a journal (or a replica's log) behind a store: how long its event hub keeps taking
    /// versions into its resume ring after its last stream left, so that a client reconnecting
    /// after a blip resumes from memory; the first version after that is no longer taken (a store
    /// nobody follows costs its commits nothing), and a later resume reads the journal. Nil, the
    /// default: 30 s, or three reconnect delays when that is longer. Not a setting of
    /// `remvvm-server`: tests shorten it.
    var eventHubIdleGrace: Duration?

    /// ``eventHubIdleGrace`` or its default.
    var effectiveEventHubIdleGrace: Duration {
        eventHubIdleGrace ?? max(.seconds(30), reconnectDelay * 3)
    }

    /// How versions appear in `ETag`s and event ids. Default: qualified by a random token of this
    /// instance, because the store lives in memory and its versions start again at 0 in the next
    /// process (see ``VersionTags``).
    public var versionTags: VersionTags = .randomInstance()

    /// With a journal: versions between snapshots (a restart replays at most about this many
    /// actions). Default 10,000.
    public var snapshotEvery: UInt64 = 10_000

    /// With a journal: how much before the newest snapshot keeps its records (for `GET /actions`
    /// and resuming streams) — a number of versions, or an age; older ones are removed after each
    /// snapshot. Default 1,000,000 versions.
    public var journalRetention: JournalRetention = .versions(1_000_000)

    /// The most recent versions each store keeps in memory for event streams that resume with
    /// `Last-Event-ID` (with a journal, older versions are rebuilt from it). Default 10,000.
    public var replayRingEvents: Int = 10_000
    /// The bytes those versions may take, all stores together, estimated from the size of recent
    /// events (fewer are kept of a large state): each store that changed keeps its share, this
    /// over the stores keeping versions. Default 64 MiB.
    public var replayRingBytes: Int = 64 << 20

    /// How long the answer to a request with an `Idempotency-Key` is kept: a retry within it gets
    /// the same answer and dispatches nothing; after it, the key may be used again.
    public var idempotencyRetention: Duration = .seconds(24 * 3_600)

    /// In-memory mode only: the most answers kept for idempotency keys, by every store together
    /// (the oldest of any store go first).
    public var idempotencyMemoryLimit: Int = 100_000

    /// In-memory mode only: the most actions the action logs (`GET /actions`) keep, of every store
    /// together; each store keeps at most its newest 1,000, and at most its share of these (this
    /// over the stores keeping actions).
    public var actionLogMemoryLimit: Int = 100_000

    /// Browser origins whose pages may call the API (CORS): `scheme://host[:port]` each, or `*`
    /// alone (any origin, without credentials). Empty: CORS off.
    public var corsAllowedOrigins: [String] = []

    /// While no access tokens are configured: the names a request's `Host` may carry (DNS names or
    /// address literals, IPv6 in brackets, without the port; `*` for any). Others get `421`, so
    /// that a web page whose DNS name was rebound to this server's address (DNS rebinding) cannot
    /// read or dispatch through a visitor's browser. Nil, the default: any address literal,
    /// `localhost` and names under `.localhost` (no page can point those at this server).
    public var allowedHosts: [String]?

    /// Whether requests, actions, the journal and streams are measured for `GET /metrics`
    /// (off: the route answers 404 and nothing is measured).
    public var metricsEnabled = true

    /// Whether a write (a POST of actions or of a command) to a store that does not exist creates
    /// it first (`docs/http-api.md`, "Stores"); a read never creates one. Default false.
    public var autoCreateStores = false

    /// The most stores that may exist, `default` included; a request that would create one more
    /// gets `507`. Default 1,000,000.
    public var maxStores = 1_000_000

    /// The most stores loaded at once, `default` included: past it the least recently used store
    /// without open streams is unloaded (with a journal; in memory nothing is unloaded).
    /// Default 10,000.
    public var maxLoadedStores = 10_000

    /// Seconds without requests and open streams after which a store is unloaded (with a
    /// journal; in memory nothing is unloaded); 0: never. Default 300.
    public var storeIdleSeconds = 300

    /// Creates the default settings.
    public init() {}
}

extension ServiceConfiguration {
    /// The values each setting accepts: the one place they are defined. `ReMVVMService.init`
    /// does not check them; ``validate()`` does, and `remvvm-server` checks its settings against them.
    public enum Allowed {
        /// Bytes a subscriber may fall behind before it is cut off.
        public static let subscriberBacklogBytes = 1_024...(1 << 30)
        /// Bytes of versions waiting to be published before every stream ends.
        public static let eventLagBudgetBytes = 0...(1 << 40)
        /// The `retry:` sent to event streams.
        public static let reconnectDelay = Duration.zero ... .seconds(3_600)
        public static let snapshotEvery: ClosedRange<UInt64> = 1...1_000_000_000
        public static let journalRetention: ClosedRange<UInt64> = 0...(1 << 53)
        /// The age of records kept before the newest snapshot.
        public static let journalRetentionAge = Duration.zero ... .seconds(100 * 365 * 86_400)
        /// Versions kept in memory for streams that resume.
        public static let replayRingEvents = 0...10_000_000
        /// Bytes those versions may take.
        public static let replayRingBytes = 0...(1 << 40)
        /// How long an answer kept for an idempotency key is replayed.
        public static let idempotencyRetention = Duration.seconds(1) ... .seconds(365 * 24 * 3_600)
        /// Answers kept for idempotency keys in memory-only mode.
        public static let idempotencyMemoryLimit = 1...100_000_000
        /// Actions kept by the action logs of memory-only stores, together.
        public static let actionLogMemoryLimit = 1...100_000_000
        /// Stores that may exist.
        public static let maxStores = 1...1_000_000_000
        /// Stores loaded at once.
        public static let maxLoadedStores = 1...100_000_000
        /// Seconds a store stays loaded without use; 0: for ever.
        public static let storeIdleSeconds = 0...(366 * 86_400)
    }

    /// Throws ``ServiceConfigurationError`` for the first value outside ``Allowed``.
    public func validate() throws(ServiceConfigurationError) {
        func check<Value: Comparable>(_ name: String, _ value: Value, _ range: ClosedRange<Value>) throws(ServiceConfigurationError) {
            guard range.contains(value) else {
                throw ServiceConfigurationError(
                    property: name,
                    message: "\(name) must be in \(range.lowerBound)...\(range.upperBound), not \(value)"
                )
            }
        }
        try check("subscriberBacklogBytes", subscriberBacklogBytes, Allowed.subscriberBacklogBytes)
        try check("eventLagBudgetBytes", eventLagBudgetBytes, Allowed.eventLagBudgetBytes)
        try check("reconnectDelay", reconnectDelay, Allowed.reconnectDelay)
        try check("snapshotEvery", snapshotEvery, Allowed.snapshotEvery)
        switch journalRetention {
        case .versions(let count):
            try check("journalRetention", count, Allowed.journalRetention)
        case .age(let age):
            try check("journalRetention", age, Allowed.journalRetentionAge)
        }
        try check("replayRingEvents", replayRingEvents, Allowed.replayRingEvents)
        try check("replayRingBytes", replayRingBytes, Allowed.replayRingBytes)
        try check("idempotencyRetention", idempotencyRetention, Allowed.idempotencyRetention)
        try check("idempotencyMemoryLimit", idempotencyMemoryLimit, Allowed.idempotencyMemoryLimit)
        try check("actionLogMemoryLimit", actionLogMemoryLimit, Allowed.actionLogMemoryLimit)
        try check("maxStores", maxStores, Allowed.maxStores)
        try check("maxLoadedStores", maxLoadedStores, Allowed.maxLoadedStores)
        try check("storeIdleSeconds", storeIdleSeconds, Allowed.storeIdleSeconds)
        _ = try CORSPolicy(allowedOrigins: corsAllowedOrigins)
        for name in allowedHosts ?? [] where !HostCheck.isValidEntry(name) {
            throw ServiceConfigurationError(
                property: "allowedHosts",
                message: "allowedHosts: \"\(name)\" is not a host name; write a DNS name or an address (IPv6 in brackets) without port, scheme or path, or * alone"
            )
        }
        if let names = allowedHosts, names.contains("*"), names.count > 1 {
            throw ServiceConfigurationError(property: "allowedHosts", message: "allowedHosts: * (any name) stands alone; with other names it would make them pointless")
        }
        if allowedHosts?.isEmpty == true {
            throw ServiceConfigurationError(property: "allowedHosts", message: "allowedHosts: an empty list would refuse every request; leave it unset for the automatic choice")
        }
    }
}

/// A ``ServiceConfiguration`` value outside ``ServiceConfiguration/Allowed``.
public struct ServiceConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The property's name.
    public let property: String
    /// What is wrong, starting with the property's name.
    public let message: String

    /// The message.
    public var description: String { message }
}
