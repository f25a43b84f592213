import JSONPatch

/// The store's state, version after version, as an `AsyncSequence` of ``StateEvent``s: the
/// current state first, then every version in order, with no gap and no repeat across
/// reconnections and server restarts (see ``ResumingEventSource``).
///
/// With deltas (`GET /events?delta=json-patch`) the server sends each version as a JSON Patch
/// against the one before, which the client applies to the state it holds (`JSONPatch`); `state`
/// events (the first, a patch larger than the state, a resume) replace it. A delta stream resumed
/// after an older version starts with the current state, skipping the versions in between
/// (docs/http-api.md, "Deltas"): the client then reads those from a plain stream resumed at the
/// same id (``Iterator/missedVersions(after:through:)``), so none is missed. Resumed after the
/// newest version, a delta stream sends patches to a state it never sent: the client reads that
/// version's state from a plain stream first (``Iterator/states(after:through:)``). A reset (`"reset":
/// true`, the server could not resume) replaces it too and is flagged. An event whose version is
/// not above the last one handed out (and is no reset) is skipped. The sequence ends only when its
/// task is cancelled, or throws a ``ClientError`` (an answer like `401`, or a patch that does not
/// apply).
public struct StateEvents: AsyncSequence, Sendable {
    /// A ``StateEvent``.
    public typealias Element = StateEvent

    let client: ReMVVMClient
    let deltas: Bool
    let lastEventID: String?

    /// Starts reading the stream (the connection opens on the first `next()`).
    public func makeAsyncIterator() -> Iterator {
        let query: [(name: String, value: String)] = deltas ? [("delta", "json-patch")] : []
        let held = lastEventID.map(VersionTag.init)
        return Iterator(
            client: client, source: ResumingEventSource(client: client, path: "/events", query: query, lastEventID: lastEventID),
            lastVersion: held?.version, lastTag: held?.version == nil ? nil : held
        )
    }

    /// Reads events and keeps the state patches apply to.
    public struct Iterator: AsyncIteratorProtocol {
        let client: ReMVVMClient
        var source: ResumingEventSource
        var document: JSON?
        /// The last version handed out, or the one the caller holds (`after`) before the first.
        var lastVersion: UInt64?
        var lastTag: VersionTag?
        /// Versions read from a plain stream to fill a delta stream's gap, handed out first.
        var backlog: [StateEvent] = []

        /// The next version of the state.
        public mutating func next() async throws -> StateEvent? {
            if !backlog.isEmpty { return handOut(backlog.removeFirst()) }
            while let event = try await source.next() {
                guard event.type == "state" || event.type == "patch" else { continue }
                if event.type == "patch" {
                    let version = try EventData(event).version()
                    // Held already (after a reset read from a plain stream): the state is past it.
                    if let lastVersion, version <= lastVersion, document != nil { continue }
                    if document == nil, let lastTag {
                        // Resumed after the version the caller holds, which this stream never sent.
                        backlog = try await states(after: lastTag, through: version)
                        document = backlog.last?.state
                        return handOut(backlog.removeFirst())
                    }
                }
                let update = try apply(event)
                if let lastVersion, update.version <= lastVersion, !update.isReset { continue }
                if event.type == "state", !update.isReset, let lastVersion, let lastTag, update.version > lastVersion + 1 {
                    backlog = try await missedVersions(after: lastTag, through: update)
                    return handOut(backlog.removeFirst())
                }
                return handOut(update)
            }
            return nil
        }

        private mutating func handOut(_ event: StateEvent) -> StateEvent {
            lastVersion = event.version
            lastTag = event.tag
            return event
        }

        /// The state after `event`, kept for the next patch.
        mutating func apply(_ event: ServerSentEvent) throws -> StateEvent {
            let data = try EventData(event)
            let version = try data.version()
            let tag = VersionTag(event.id ?? String(version))
            let action = data.member("action").flatMap { $0 == .null ? nil : $0 }
            if event.type == "patch" {
                guard var state = document else {
                    throw ClientError(.invalidResponse, "a patch event (version \(version)) came before any state event")
                }
                document = nil  // the only reference while the patch applies, so arrays change in place
                let patch = try data.patch()
                do {
                    try state.apply(patch)
                } catch {
                    throw ClientError(.invalidResponse, "the patch of version \(version) does not apply to version \(lastVersion.map(String.init) ?? "?"): \(error)")
                }
                document = state
                return StateEvent(version: version, tag: tag, isReset: false, action: action, state: state)
            }
            guard let state = data.member("state") else {
                throw ClientError(.invalidResponse, "a state event (version \(version)) without \"state\"")
            }
            document = state
            return StateEvent(version: version, tag: tag, isReset: data.member("reset") == .bool(true), action: action, state: state)
        }
    }
}

extension ReMVVMClient {
    /// The store's state as JSON, version after version (``StateEvents``); with `deltas` (the
    /// default) the server sends patches, which cost the server and the network far less for a
    /// large state. `after` resumes after a version the caller already has.
    public func stateEvents(deltas: Bool = true, after tag: VersionTag? = nil) -> StateEvents {
        StateEvents(client: self, deltas: deltas, lastEventID: tag?.text)
    }
}
