import MicroHTTP
import ReMVVM
import Synchronization

/// New streams: how each begins (the current state, the versions after its `Last-Event-ID` from the
/// ring, a reset, or a rebuild from the journal), decided under the inbox lock so that the versions
/// it is sent first and the ones that reach it live meet without gap or repeat.
extension EventHub {
    /// How a new stream begins.
    enum Resume {
        /// With the newest state (no `Last-Event-ID`).
        case current
        /// With every version after the client's last one (possibly none), then live.
        case replay([StatePublication<State>])
        /// With the newest state marked `"reset": true`: the client's last version cannot be
        /// served (not a version of this store, newer than the current one, or no longer kept).
        case reset
        /// Already started by ``JournalReplay`` (`retry:` and every version before these): these
        /// versions, then live.
        case handover([StatePublication<State>])
        /// Started by ``JournalReplay``, which cannot go on rebuilding it: the newest state marked
        /// `"reset": true` (after `retry:` unless the replay sent it), then live.
        case resetAfterReplay(retrySent: Bool)
    }

    /// How a new stream opens: at the hub, or rebuilt from the journal first.
    private enum Opening {
        /// Queued at the hub, starting as the ``Resume`` says.
        case hub(Resume)
        /// Not queued: the ring no longer holds the version after this one, the journal may.
        case journal(JournalReplay<State>, after: UInt64)
        /// Not queued: the hub has stopped.
        case stopped
    }

    /// What a stream resuming after `lastEventId` gets, decided against the versions kept now.
    private func opening(after lastEventId: String?, inbox: EventHubInbox) -> Opening {
        guard let lastEventId else { return .hub(.current) }
        guard let version = versionTags.version(ofEventId: Substring(lastEventId)),
              version <= inbox.newestVersion else { return .hub(.reset) }
        if version == inbox.newestVersion { return .hub(.replay([])) }
        guard let first = inbox.history.first, first.version <= version + 1 else {
            return journal(in: inbox).map { .journal($0, after: version) } ?? .hub(.reset)
        }
        return .hub(.replay(inbox.history.filter { $0.version > version }.map { $0.typed(as: State.self) }))
    }

    /// How a patch stream opens where a state stream would open with `opening`: like it at the
    /// newest version and where it resets; anywhere else with the full current state instead of
    /// the versions one by one (a patch stream's client replaces its state with it). A journal's
    /// verdict is left to ``subscribe(resumingAfter:format:)``.
    private static func patchStreamOpening(_ opening: Opening) -> Opening {
        if case .hub(.replay(let publications)) = opening, !publications.isEmpty {
            return .hub(.current)
        }
        return opening
    }

    /// Whether a stream resuming after `lastEventId` would start with a reset, told without
    /// subscribing (the head `HEAD /events` answers with): the id is no version of this store,
    /// or neither the ring nor the journal holds the versions after it.
    func wouldReset(resumingAfter lastEventId: String?) -> Bool {
        switch withInboxCaughtUp({ opening(after: lastEventId, inbox: $0) }) {
        case .hub(.reset): true
        case .journal(let journal, let version): !journal.canRebuild(after: version)
        case .hub, .stopped: false
        }
    }

    /// A new subscriber's stream: the newest state first, then every later version; or, resuming
    /// after `lastEventId`, every version after it, then every later one (see ``Resume``). In
    /// `format` ``EventFormat/jsonPatch``, the versions after the first event come as patches,
    /// and a resume that is not at the newest version starts from the full current state (see
    /// ``patchStreamOpening(_:)``). Returns whether the stream starts with a reset.
    func subscribe(resumingAfter lastEventId: String? = nil, format: EventFormat = .states) -> (stream: EventStream, isReset: Bool) {
        let stream = EventStream(maxPendingBytes: backlogBytes)
        let id = ObjectIdentifier(stream)
        let logger = logger
        let backlogBytes = backlogBytes
        let metrics = metrics
        openStreams.add(1, ordering: .relaxed)
        stream.onTermination { [weak self] reason in
            self?.openStreams.subtract(1, ordering: .relaxed)
            metrics?.subscriberDisconnected(reason: ServiceMetrics.disconnectReason(reason))
            switch reason {
            case .overflow:
                logger.warning("event subscriber disconnected: it fell more than \(backlogBytes) bytes behind")
            case .stalled:
                logger.warning("event subscriber disconnected: its socket took nothing for a heartbeat interval while events waited (it stopped reading, or reads too slowly to keep up)")
            default:
                logger.debug("event subscriber ended", metadata: ["reason": "\(reason)"])
            }
            self?.post(.unsubscribe(id))
        }
        switch postSubscription(stream, resumingAfter: lastEventId, format: format) {
        case .hub(.reset):
            return (stream, true)
        case .hub:
            return (stream, false)
        case .journal(let journal, let version) where format == .jsonPatch:
            // The full current state either way; whether the journal could serve the version
            // after the client's decides whether that is a reset, as for a state stream.
            let isReset = !journal.canRebuild(after: version)
            guard post(.subscribe(stream, isReset ? .reset : .current, format), subscribing: true) else {
                stream.close()
                return (stream, false)
            }
            return (stream, isReset)
        case .journal(let journal, let version):
            // Reads the journal on this (HTTP worker) thread: whether it can serve decides the
            // response's `ReMVVM-Replay` header.
            if journal.start(stream, after: version) {
                return (stream, false)
            }
            guard post(.subscribe(stream, .reset, format), subscribing: true) else {
                stream.close()
                return (stream, false)
            }
            return (stream, true)
        case .stopped:
            stream.close()
            return (stream, false)
        }
    }

    /// Queues a new subscriber with how it resumes, decided under the inbox lock so that the
    /// versions it replays and the ones that reach it live meet without gap or repeat; or, when
    /// only the journal may hold its next version, returns that without queuing it.
    private func postSubscription(_ stream: EventStream, resumingAfter lastEventId: String?, format: EventFormat) -> Opening {
        let (opening, wake) = withInboxCaughtUp { inbox -> (Opening, Bool) in
            guard !inbox.publications.stopped else { return (.stopped, false) }
            var opening = self.opening(after: lastEventId, inbox: inbox)
            if format == .jsonPatch {
                opening = Self.patchStreamOpening(opening)
            }
            guard case .hub(let resume) = opening else { return (opening, false) }
            _ = inbox.publications.post(Item.subscribe(stream, resume, format), listens: true)
            return (opening, inbox.started && inbox.publications.needsWake())
        }
        if wake { wakeLane() }
        return opening
    }

    /// For a stream ``JournalReplay`` has sent every version through `version` (at most the
    /// newest published): when the ring holds the rest and it is short, queues the stream to
    /// join with it, under the inbox lock, like a new subscriber — so the versions it was sent
    /// and the ones that reach it from here meet without gap or repeat. Otherwise says where the
    /// next versions are: up to `ringLimit` of them from the ring, or the journal.
    func continueReplay(of stream: EventStream, after version: UInt64, ringLimit: Int) -> ReplayContinuation<State> {
        let handoverLimit = UInt64(max(1, min(64, broadcastLimitBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))))
        let (continuation, wake) = withInboxCaughtUp { inbox -> (ReplayContinuation<State>, Bool) in
            guard !inbox.publications.stopped else { return (.stopped, false) }
            var rest: [StatePublication<State>] = []
            if version < inbox.newestVersion {
                guard let first = inbox.history.first, first.version <= version + 1 else {
                    return (.journal(through: inbox.newestVersion), false)
                }
                let start = Int(version + 1 - first.version)
                guard inbox.newestVersion - version <= handoverLimit else {
                    let end = min(inbox.history.count, start + max(1, ringLimit))
                    return (.ring(publications(in: inbox, start..<end)), false)
                }
                rest = publications(in: inbox, start..<inbox.history.count)
            }
            _ = inbox.publications.post(Item.subscribe(stream, .handover(rest), .states), listens: true)
            return (.handedOver, inbox.started && inbox.publications.needsWake())
        }
        if wake { wakeLane() }
        return continuation
    }

    /// The publication of `version` while the resume ring still holds it (view-model streams
    /// resuming after it compare with the view models it made).
    func publication(atVersion version: UInt64) -> StatePublication<State>? {
        withInboxCaughtUp { inbox in
            guard let first = inbox.history.first, version >= first.version else { return nil }
            let index = Int(version - first.version)
            return index < inbox.history.count ? inbox.history[index].typed(as: State.self) : nil
        }
    }

    /// The state at `version` when it is the one the hub started at and there is no journal
    /// (which rebuilds it otherwise); nil for any other version.
    func startState(atVersion version: UInt64) -> State? {
        inbox.withLock { inbox in
            guard let start = start(in: inbox), start.version == version else { return nil }
            return start.state
        }
    }
}
