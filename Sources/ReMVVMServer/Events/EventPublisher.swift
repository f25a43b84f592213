import ConcurrencyKit
import MicroHTTP
import ReMVVM

/// The work of an ``EventHub`` on its lane: takes the inbox in order, starts new streams, encodes
/// each version once and sends every channel its pending events. Its state is the lane's
/// (``SerialLane``): touched by one job at a time, never by another thread.
final class EventPublisher<State: StoreState & Encodable> {
    typealias Item = EventHub<State>.Item
    typealias Resume = EventHub<State>.Resume

    /// The newest state and, once a subscriber needed it, its encoding.
    struct Latest: Sendable {
        var version: UInt64
        var publication: StatePublication<State>?
        var encoded: EncodedVersion?
    }

    /// Unowned: every job of the lane holds the hub (it submitted it), and the hub holds the lane.
    unowned let hub: EventHub<State>
    /// The `state` streams (plain `GET /events`).
    var states = EventChannel()
    /// The `patch` streams (`GET /events?delta=json-patch`).
    var patches = EventChannel()
    /// The previous version's state JSON, and the patch of each version, for `patches`.
    var patchFrames = PatchFrameEncoder()
    var latest: Latest
    var statistics = EventStatistics()
    /// The inbox's entries, taken in turns with the inbox's own array.
    private var entries: [PublicationInbox.Entry] = []
    /// When the pending events were last sent (``MonotonicClock``), or when the batch under way
    /// started if later.
    private var lastBroadcast: Int64 = 0
    /// How long an encoded version may wait for the versions after it, to go out in one write:
    /// versions that take longer to encode (very large states) go out one by one as each is
    /// ready, instead of all at the end of the batch.
    private static var longestHoldNanoseconds: Int64 { 2_000_000 }

    private var frames: StateFrameEncoder { hub.frames }
    private var versionTags: VersionTags { hub.versionTags }
    private var retryField: [UInt8] { hub.retryField }
    private var broadcastLimitBytes: Int { hub.broadcastLimitBytes }

    init(hub: EventHub<State>, latest: Latest) {
        self.hub = hub
        self.latest = latest
    }

    /// Takes what the inbox holds and does it; after the hub's stop, ends every stream and
    /// returns true (the lane then forgets this publisher).
    func drain() -> Bool {
        let batch = hub.inbox.withLock { inbox in
            statistics.versionsSetAside = inbox.publications.versionsSetAside
            return inbox.publications.take(into: &entries)
        }
        if batch.dropListeners {
            disconnectLaggingSubscribers()
        }
        if let setAside = batch.setAside {
            remember(PublicationInbox.publication(setAside, as: State.self))
        }
        process(entries)
        entries.removeAll(keepingCapacity: true)
        updateListening()
        guard batch.stopping else { return false }
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        hub.updateSubscriberTotal(0)
        hub.sharedStatistics.withLock { $0 = statistics }
        hub.logger.notice("event publishing stopped: \(statistics)")
        hub.inbox.withLock { $0.publications.finished = true }
        hub.inbox.notifyAll()
        return true
    }

    private func process(_ entries: [PublicationInbox.Entry]) {
        lastBroadcast = MonotonicClock.nanoseconds()
        for entry in entries {
            switch entry {
            case .publication(let object):
                let publication = PublicationInbox.publication(object, as: State.self)
                statistics.versionsProcessed += 1
                if !hasListeners {
                    remember(publication)
                } else if let encoded = encode(publication) {
                    latest = Latest(version: publication.version, encoded: encoded)
                    if states.hasListeners {
                        states.pending += encoded.frame
                    }
                    if patches.hasListeners {
                        patches.pending += patchFrames.frame(
                            for: encoded, id: versionTags.tag(encoded.version), statistics: &statistics, logger: hub.logger
                        )
                    } else {
                        patchFrames.forget()
                    }
                    if states.pending.count >= broadcastLimitBytes || patches.pending.count >= broadcastLimitBytes
                        || MonotonicClock.nanoseconds() - lastBroadcast >= Self.longestHoldNanoseconds
                    {
                        broadcast()
                    }
                }
            case .item(let item):
                switch PublicationInbox.item(item, as: Item.self) {
                case .subscribe(let stream, let resume, let format):
                    broadcast()
                    if case .replay(let publications) = resume, publications.isEmpty {
                        startResumedAtNewest(stream, format: format)
                    } else if format == .jsonPatch {
                        startPatchStream(stream, resume)
                    } else if start(stream, resume) {
                        states.insert(stream)
                    }
                case .unsubscribe(let id):
                    states.remove(id)
                    patches.remove(id)
                }
            }
        }
        broadcast()
        if !patches.hasListeners {
            patchFrames.forget()
        }
        // Before the count: whoever waits for subscribers then reads statistics that include
        // what their first events cost.
        hub.sharedStatistics.withLock { $0 = statistics }
        hub.updateSubscriberTotal(states.count + patches.count)
    }

    /// Whether any stream wants the next versions: subscribers, and streams awaiting their first.
    private var hasListeners: Bool {
        states.hasListeners || patches.hasListeners
    }

    /// A stream resumed at the newest version: a comment line alone (like the heartbeat), so that
    /// the response head goes out now (libmicrohttpd sends it with the first body bytes); it joins
    /// its channel at the next broadcast. A patch stream needs the newest state JSON for that one.
    private func startResumedAtNewest(_ stream: EventStream, format: EventFormat) {
        if format == .jsonPatch {
            guard let encoded = latestEncoded() else {
                stream.close()
                return
            }
            patchFrames.prepare(encoded)
        }
        guard stream.send(Self.resumedComment) else { return }
        switch format {
        case .states: states.awaitFirstEvent(stream)
        case .jsonPatch: patches.awaitFirstEvent(stream)
        }
    }

    /// Sends a new patch stream the full newest state (marked as a reset for ``Resume/reset``) and
    /// takes it in, with the newest state JSON kept for the next version's patch.
    private func startPatchStream(_ stream: EventStream, _ resume: Resume) {
        guard let encoded = latestEncoded() else {
            stream.close()  // the newest state cannot be encoded (logged)
            return
        }
        patchFrames.prepare(encoded)
        var frame = encoded.frame
        if case .reset = resume {
            frame = EventFrame.markedAsReset(frame, version: encoded.version, id: versionTags.tag(encoded.version))
        }
        if stream.send(retryField, frame) {
            patches.insert(stream)
        }
    }

    /// The first bytes of a stream resumed at the newest version.
    private static var resumedComment: [UInt8] { Array(": resumed\n".utf8) }

    /// Sends a new stream its first events; false if it cannot be served.
    /// The frames of `publications`, counted as replayed; nil (and `stream` closed) when one
    /// cannot be encoded.
    private func replayFrames(_ publications: [StatePublication<State>], to stream: EventStream) -> [UInt8]? {
        var frames: [UInt8] = []
        for publication in publications {
            guard let encoded = encode(publication) else {
                stream.close()
                return nil
            }
            frames += encoded.frame
        }
        statistics.replayedVersions += publications.count
        return frames
    }

    private func start(_ stream: EventStream, _ resume: Resume) -> Bool {
        switch resume {
        case .current, .reset, .resetAfterReplay:
            guard var frame = latestEncoded()?.frame else {
                stream.close()  // the newest state cannot be encoded (logged): nothing to stream
                return false
            }
            if case .current = resume {} else {
                frame = EventFrame.markedAsReset(frame, version: latest.version, id: versionTags.tag(latest.version))
            }
            if case .resetAfterReplay(retrySent: true) = resume {
                return stream.send(frame)
            }
            // `retry:` in the first event's block, without copying the frame.
            return stream.send(retryField, frame)
        case .replay(let publications):
            guard let frames = replayFrames(publications, to: stream) else { return false }
            return stream.send(retryField, frames)
        case .handover(let publications):
            guard let frames = replayFrames(publications, to: stream) else { return false }
            // A stream that ended while it was replayed is not taken in (its departure may
            // have been processed already).
            return frames.isEmpty ? !stream.isClosed : stream.send(frames)
        }
    }

    /// Stops sending to subscribers that can no longer be caught up (see the type's documentation).
    private func disconnectLaggingSubscribers() {
        guard hasListeners else { return }
        hub.logger.warning(
            "event publishing fell more than \(hub.lagBudgetBytes) bytes behind the store; disconnecting \(states.count + patches.count) subscribers so they restart from the current state"
        )
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        patchFrames.forget()
    }

    /// With no subscriber left and none arriving, publications go aside again.
    private func updateListening() {
        guard !hasListeners else { return }
        hub.inbox.withLock { hub.stopListeningIfIdle(&$0) }
    }

    /// Keeps `publication` as the newest state without encoding it (nobody needs it yet).
    private func remember(_ publication: StatePublication<State>) {
        guard publication.version > latest.version else { return }
        latest = Latest(version: publication.version, publication: publication)
    }

    /// The newest state's encoding, made now if nobody needed it before.
    private func latestEncoded() -> EncodedVersion? {
        if let encoded = latest.encoded {
            return encoded
        }
        guard let publication = latest.publication, let encoded = encode(publication) else { return nil }
        latest.encoded = encoded
        latest.publication = nil
        return encoded
    }

    /// Sends each channel its pending events. The statistics are shared first, so that a client
    /// that has an event reads counts that include its version, and again after the sends.
    private func broadcast() {
        guard !states.pending.isEmpty || !patches.pending.isEmpty else { return }
        lastBroadcast = MonotonicClock.nanoseconds()
        hub.sharedStatistics.withLock { $0 = statistics }
        for deliveries in [
            states.broadcast(through: hub.fanOut, retryField: retryField),
            patches.broadcast(through: hub.fanOut, retryField: retryField),
        ] {
            guard let deliveries else { continue }
            statistics.broadcasts += 1
            statistics.deliveries += deliveries
        }
        hub.sharedStatistics.withLock { $0 = statistics }
    }

    private func encode(_ publication: StatePublication<State>) -> EncodedVersion? {
        do {
            let encoded = try frames.encode(publication)
            statistics.statesEncoded += 1
            hub.stateCache.remember(encoded.state, version: publication.version)
            hub.lastFrameBytes.store(encoded.frame.count, ordering: .relaxed)
            return encoded
        } catch {
            hub.logger.error("state version \(publication.version) cannot be encoded: \(error)")
            return nil
        }
    }
}
