/// What the event publisher did, logged when it stops: evidence that each state is encoded at most
/// once per version, however many subscribers there are.
struct EventStatistics: CustomStringConvertible {
    /// Versions the publisher received from the store (set-aside ones while nobody listened excluded).
    var versions = 0
    /// States encoded to JSON for events.
    var statesEncoded = 0
    /// Buffers sent to all subscribers (several versions may share one).
    var broadcasts = 0
    /// Buffers handed to individual subscribers.
    var deliveries = 0
    /// Versions sent again to streams that resumed with `Last-Event-ID`.
    var replayedVersions = 0

    var description: String {
        "\(versions) versions, \(statesEncoded) states encoded, \(broadcasts) broadcasts, \(deliveries) deliveries, \(replayedVersions) replayed"
    }
}
