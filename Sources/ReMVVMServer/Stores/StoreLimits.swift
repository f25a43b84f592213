/// The limits of a ``StoreDirectory`` (`docs/http-api.md`, "Stores"; the settings
/// `autoCreateStores`, `maxStores`, `maxLoadedStores`, `storeIdleSeconds`).
public struct StoreLimits: Sendable, Equatable {
    /// Whether a write (a POST of actions or of a command) to a store that does not exist creates
    /// it first; a read never creates one.
    public var autoCreate: Bool
    /// The most stores that may exist, `default` included; a creation past it answers `507`.
    public var maxStores: Int
    /// The most stores loaded at once, `default` included; past it the least recently used one
    /// without open streams is unloaded. Stores with open streams stay, even past it.
    public var maxLoaded: Int
    /// A store without requests and open streams for this long is unloaded; nil: never.
    public var idleTime: Duration?

    /// Creates limits.
    public init(autoCreate: Bool, maxStores: Int, maxLoaded: Int, idleTime: Duration?) {
        self.autoCreate = autoCreate
        self.maxStores = maxStores
        self.maxLoaded = maxLoaded
        self.idleTime = idleTime
    }

    /// The limits `configuration` sets.
    public init(_ configuration: ServiceConfiguration) {
        self.init(
            autoCreate: configuration.autoCreateStores,
            maxStores: configuration.maxStores,
            maxLoaded: configuration.maxLoadedStores,
            idleTime: configuration.storeIdleSeconds == 0 ? nil : .seconds(configuration.storeIdleSeconds)
        )
    }

    /// The idle time in milliseconds; nil: never idle.
    var idleMilliseconds: Int64? {
        idleTime.map { Int64($0.components.seconds) * 1_000 + $0.components.attoseconds / 1_000_000_000_000_000 }
    }
}
