import MicroHTTP

/// The event hub's current subscribers: found by identity, handed out as an array for sending.
///
/// The array is rebuilt only after the set changed, not for every event.
struct SubscriberSet {
    private var byIdentity: [ObjectIdentifier: EventStream] = [:]
    private var cachedStreams: [EventStream]?

    var count: Int { byIdentity.count }
    var isEmpty: Bool { byIdentity.isEmpty }

    mutating func insert(_ stream: EventStream) {
        byIdentity[ObjectIdentifier(stream)] = stream
        cachedStreams = nil
    }

    mutating func remove(_ id: ObjectIdentifier) {
        if byIdentity.removeValue(forKey: id) != nil {
            cachedStreams = nil
        }
    }

    /// Empties the set and returns what it held.
    mutating func removeAll() -> [EventStream] {
        defer {
            byIdentity.removeAll()
            cachedStreams = nil
        }
        return streams()
    }

    /// Every subscriber, in no particular order.
    mutating func streams() -> [EventStream] {
        if let cachedStreams {
            return cachedStreams
        }
        let streams = Array(byIdentity.values)
        cachedStreams = streams
        return streams
    }
}
