/// What the event publisher did, logged when it stops and readable while it runs
/// (``ReMVVMService/eventStatistics``): evidence that each state is encoded at most once per
/// version, and each patch computed at most once, however many subscribers there are.
public struct EventStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Versions the store published to the hub: every version reduced while the hub ran, those
    /// set aside included (``versionsSetAside``).
    public var versions: Int { versionsProcessed + versionsSetAside }
    /// Versions the publisher thread took in and sent on to the streams that listened.
    public internal(set) var versionsProcessed = 0
    /// Versions left aside, never encoded for a stream: reduced while no stream listened, or
    /// dropped unsent with the subscribers that lagged too far behind.
    public internal(set) var versionsSetAside = 0
    /// States encoded to JSON for events.
    public internal(set) var statesEncoded = 0
    /// Buffers sent to all subscribers of one stream format (several versions may share one).
    public internal(set) var broadcasts = 0
    /// Buffers handed to individual subscribers.
    public internal(set) var deliveries = 0
    /// Versions sent again to streams that resumed with `Last-Event-ID`.
    public internal(set) var replayedVersions = 0
    /// Encoded states read for patch streams (`delta=json-patch`), compared with the version
    /// before's text: once per version while one listens.
    public internal(set) var statesParsed = 0
    /// JSON Patches computed for patch streams: once per version while one listens.
    public internal(set) var patchesComputed = 0
    /// Versions patch streams got as a full `state` event instead: a patch larger than the
    /// state, or no previous version to diff against.
    public internal(set) var fullStatesInsteadOfPatches = 0

    /// All zero.
    public init() {}

    /// One line for the log (`scripts/bench.sh` reads "N versions," and "N states encoded").
    public var description: String {
        "\(versions) versions, \(versionsSetAside) of them set aside while no stream listened, \(statesEncoded) states encoded, \(broadcasts) broadcasts, \(deliveries) deliveries, \(replayedVersions) replayed, \(patchesComputed) patches computed, \(statesParsed) parsed for patches, \(fullStatesInsteadOfPatches) full-state events instead of patches"
    }
}
