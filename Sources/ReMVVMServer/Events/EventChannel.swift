import MicroHTTP

/// The streams of one ``EventFormat`` and the events waiting for them; the event hub has one per
/// format and touches them on its publisher thread only.
struct EventChannel {
    /// Streams that get every broadcast.
    private(set) var subscribers = SubscriberSet()
    /// Streams resumed at the newest version: nothing to replay, so they join at the next
    /// broadcast, which they get with `retry:` in front (never a block without data: some
    /// clients turn one into an empty event).
    private var awaitingFirstEvent: [ObjectIdentifier: EventStream] = [:]
    /// Events not broadcast yet, in version order.
    var pending: [UInt8] = []

    /// Whether any stream wants the next versions: subscribers, and streams awaiting their first.
    var hasListeners: Bool { !subscribers.isEmpty || !awaitingFirstEvent.isEmpty }

    /// Subscribers and streams awaiting their first event.
    var count: Int { subscribers.count + awaitingFirstEvent.count }

    mutating func insert(_ stream: EventStream) {
        subscribers.insert(stream)
    }

    /// Keeps `stream` until the next broadcast, which it joins.
    mutating func awaitFirstEvent(_ stream: EventStream) {
        awaitingFirstEvent[ObjectIdentifier(stream)] = stream
    }

    mutating func remove(_ id: ObjectIdentifier) {
        subscribers.remove(id)
        awaitingFirstEvent[id] = nil
    }

    /// Empties the channel (pending events too) and returns its streams.
    mutating func removeAll() -> [EventStream] {
        let streams = subscribers.removeAll() + Array(awaitingFirstEvent.values)
        awaitingFirstEvent.removeAll()
        pending = []
        return streams
    }

    /// Sends the pending events to every subscriber, then to the streams awaiting their first
    /// event (joined after the send, so that they get these events once, with `retry:` in front).
    /// Returns how many subscribers got them, or nil when nothing was pending.
    mutating func broadcast(through fanOut: FanOutPool, retryField: [UInt8]) -> Int? {
        guard !pending.isEmpty else { return nil }
        fanOut.send(pending, to: subscribers.streams())
        for stream in awaitingFirstEvent.values where stream.send(retryField, pending) {
            subscribers.insert(stream)
        }
        awaitingFirstEvent.removeAll(keepingCapacity: true)
        pending = []
        return subscribers.count
    }
}
