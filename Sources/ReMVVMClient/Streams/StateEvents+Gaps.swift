import JSONPatch

extension StateEvents.Iterator {
    /// The versions after `tag` through `resumed` (the current state a resumed delta stream
    /// started with), read from a plain `GET /events` resumed at `tag`, which replays every
    /// version; the last one is `resumed` itself. When the plain stream cannot resume either (a
    /// reset), the versions are lost to the server too: `resumed` comes back marked as a reset.
    func missedVersions(after tag: VersionTag, through resumed: StateEvent) async throws -> [StateEvent] {
        var plain = ResumingEventSource(client: client, path: "/events", query: [], lastEventID: tag.text)
        var missed: [StateEvent] = []
        while let event = try await plain.next() {
            guard event.type == "state" else { continue }
            let read = try Self.stateEvent(event)
            if read.isReset {
                var reset = resumed
                reset.isReset = true
                return [reset]
            }
            if read.version >= resumed.version {
                var last = resumed
                last.action = read.version == resumed.version ? read.action : resumed.action  // the resumed event has none
                return missed + [last]
            }
            missed.append(read)
        }
        return missed + [resumed]
    }

    /// The versions after `tag` through `version` (at least one), read from a plain `GET /events`
    /// resumed at `tag`: for a delta stream whose first event is a patch to a state the caller
    /// held (`after`), not this iterator. When the plain stream cannot resume (a reset), its
    /// current state, marked as a reset, is all there is.
    func states(after tag: VersionTag, through version: UInt64) async throws -> [StateEvent] {
        var plain = ResumingEventSource(client: client, path: "/events", query: [], lastEventID: tag.text)
        var states: [StateEvent] = []
        while let event = try await plain.next() {
            guard event.type == "state" else { continue }
            let read = try Self.stateEvent(event)
            if read.isReset { return [read] }
            states.append(read)
            if read.version >= version { return states }
        }
        throw ClientError(.invalidResponse, "the events after \(tag) ended before version \(version)")
    }

    /// A `state` event of a plain stream as a ``StateEvent``.
    static func stateEvent(_ event: ServerSentEvent) throws -> StateEvent {
        let data = try EventData(event)
        let version = try data.version()
        guard let state = data.member("state") else {
            throw ClientError(.invalidResponse, "a state event (version \(version)) without \"state\"")
        }
        return StateEvent(
            version: version, tag: VersionTag(event.id ?? String(version)), isReset: data.member("reset") == .bool(true),
            action: data.member("action").flatMap { $0 == .null ? nil : $0 }, state: state
        )
    }
}
