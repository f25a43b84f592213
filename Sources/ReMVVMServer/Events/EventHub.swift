import Foundation
import ConcurrencyKit
import DequeModule
import Logging
import MicroHTTP
import ReMVVM
import Synchronization

/// Fans every state change out to the `GET /events` subscribers, in version order.
///
/// The store's publication hook only touches the inbox, so dispatching never waits for subscribers.
/// One publisher thread takes the inbox in order — publications, new subscribers, departures — so a
/// subscriber's first event (the newest state) and the ones after it have no gap and no repeat.
/// Each version is encoded once whatever the number of subscribers, and versions that queue up while
/// the thread works leave together, in buffers of up to ``broadcastLimitBytes``: one write per
/// subscriber per buffer. The buffers are shared by every subscriber (never copied per subscriber),
/// and their bound keeps what a stalled subscriber pins close to its backlog limit.
///
/// While nobody listens, a publication only replaces the newest one kept aside: no wake-up, no
/// encoding. The switch between "aside" and "inbox" happens under the inbox lock, so every version
/// set aside is older than every version in the inbox.
///
/// The inbox is bounded: when the thread falls so far behind that the versions waiting would take
/// more than `lagBudgetBytes` to send, they are dropped and the current subscribers disconnected;
/// they reconnect and start again from the newest state. Memory never grows without limit.
///
/// Streams opened with `?delta=json-patch` (``EventFormat/jsonPatch``) are a channel of their own:
/// after the full state, each version reaches them as the JSON Patch from the version before,
/// computed once per version from the state JSON already encoded (``PatchFrameEncoder``) and shared
/// by all of them; nothing is parsed or diffed while none listens. They never replay versions one
/// by one: resuming anywhere but at the newest version starts them from the full current state.
///
/// With a journal behind it (the source has a ``VersionHistory``), a stream resuming after a
/// version older than the ring is rebuilt from the journal by ``JournalReplay`` on threads of its
/// own, and joins here through ``continueReplay(of:after:ringLimit:)`` (`docs/event-delivery.md`,
/// "Resuming from the journal").
final class EventHub<State: StoreState & Encodable>: @unchecked Sendable {
    // @unchecked: the fields under "Publisher thread only" are touched by the publisher thread
    // alone (and by `start()` before it exists); everything shared lives in `inbox`'s lock.
    private enum Item {
        case publication(StatePublication<State>)
        case subscribe(EventStream, Resume, EventFormat)
        case unsubscribe(ObjectIdentifier)
    }

    /// What the store's thread, HTTP workers and the publisher thread share.
    private struct Inbox {
        var items: [Item] = []
        var pendingPublications = 0
        var pendingSubscribes = 0
        var listening = false
        var aside: StatePublication<State>?
        /// The newest publications, every version, for streams that resume (`Last-Event-ID`);
        /// bounded by ``historyLimit``.
        var history: Deque<StatePublication<State>> = []
        /// The newest version published (or the start version).
        var newestVersion: UInt64 = 0
        var dropSubscribers = false
        /// Rebuilds versions older than `history` from the journal; nil without one.
        var journal: JournalReplay<State>?
        var started = false
        var stopped = false
        /// Set by the publisher thread when it has ended every stream and exits.
        var finished = false

        /// Whether the publisher thread has something to do.
        var hasWork: Bool { !items.isEmpty || stopped || dropSubscribers }

        /// The publisher is too far behind: drop the versions waiting and the subscribers.
        mutating func dropPendingPublications() {
            items.removeAll { if case .publication = $0 { true } else { false } }
            pendingPublications = 0
            dropSubscribers = true
        }
    }

    /// The newest state and, once a subscriber needed it, its encoding.
    private struct Latest {
        var version: UInt64
        var publication: StatePublication<State>?
        var encoded: EncodedVersion?
    }

    private let frames: StateFrameEncoder
    private let stateCache: EncodedStateCache<State>
    private let backlogBytes: Int
    private let lagBudgetBytes: Int
    /// The most bytes of queued events sent as one buffer (a single event may be larger): a
    /// quarter of the backlog limit, at most 64 KiB.
    let broadcastLimitBytes: Int
    /// `retry: <ms>` — the reconnect delay, at the start of every stream's first event.
    private let retryField: [UInt8]
    private let versionTags: VersionTags
    private let logger: Logger
    /// Counts subscribers that end, by reason (nil: metrics off).
    private let metrics: ServiceMetrics?
    /// The most versions kept for resuming streams, and the bytes they may take (estimated from
    /// the size of recent frames).
    private let replayEvents: Int
    private let replayBytes: Int

    private let inbox = Lock(Inbox())

    // Publisher thread only (see the @unchecked note above):
    /// The `state` streams (plain `GET /events`).
    private var states = EventChannel()
    /// The `patch` streams (`GET /events?delta=json-patch`).
    private var patches = EventChannel()
    /// The previous version's tree, and the patch of each version, for `patches`.
    private var patchFrames = PatchFrameEncoder()
    private let fanOut = FanOutPool(threads: ProcessInfo.processInfo.activeProcessorCount)
    private var latest: Latest
    private let subscriberTotal = Atomic<Int>(0)
    /// Told whenever `subscriberTotal` changes.
    private let subscriberChanges = ChangeSignal()
    private let lastFrameBytes = Atomic<Int>(256)
    private var statistics = EventStatistics()
    /// `statistics` as of the last broadcast, for other threads.
    private let sharedStatistics = Lock(EventStatistics())

    init(
        actions: ActionRegistry,
        stateCache: EncodedStateCache<State>,
        backlogBytes: Int,
        lagBudgetBytes: Int,
        reconnectDelay: Duration,
        versionTags: VersionTags,
        replayEvents: Int,
        replayBytes: Int,
        metrics: ServiceMetrics? = nil,
        logger: Logger
    ) {
        self.metrics = metrics
        self.replayEvents = max(0, replayEvents)
        self.replayBytes = max(0, replayBytes)
        frames = StateFrameEncoder(actions: ActionWireEncoder(registry: actions), versionTags: versionTags)
        self.stateCache = stateCache
        self.backlogBytes = backlogBytes
        self.lagBudgetBytes = lagBudgetBytes
        broadcastLimitBytes = min(64 << 10, max(4 << 10, backlogBytes / 4))
        retryField = EventFrame.retry(reconnectDelay)
        self.versionTags = versionTags
        self.logger = logger
        latest = Latest(version: 0)
    }

    /// What the publisher has done so far (as of its last broadcast).
    var currentStatistics: EventStatistics {
        sharedStatistics.withLock { $0 }
    }

    /// The number of connected subscribers, of either format.
    var subscriberCount: Int {
        subscriberTotal.load(ordering: .relaxed)
    }

    /// Waits until `condition` holds for the subscriber count, re-checking it whenever the count
    /// changes; false after `timeout`.
    func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        subscriberChanges.wait(timeout: timeout) { condition(subscriberCount) }
    }

    private func updateSubscriberTotal(_ count: Int) {
        if subscriberTotal.exchange(count, ordering: .relaxed) != count {
            subscriberChanges.changed()
        }
    }

    /// Hooks into `source` (the store, or the commit gate) and starts the publisher thread; does nothing if it was started (or
    /// stopped) before. Throws if the current state cannot be encoded.
    func start(source: any StatePublisher<State>) throws {
        let claimed = inbox.withLock { inbox -> Bool in
            guard !inbox.started, !inbox.stopped else { return false }
            inbox.started = true
            return true
        }
        guard claimed else { return }
        let journal = source.history.map { history in
            JournalReplay(
                history: history,
                frames: frames,
                chunkBytes: broadcastLimitBytes,
                retryField: retryField,
                logger: logger,
                continuation: { [weak self] stream, version, ringLimit in
                    self?.continueReplay(of: stream, after: version, ringLimit: ringLimit) ?? .stopped
                },
                reset: { [weak self] stream, retrySent in
                    self?.post(.subscribe(stream, .resetAfterReplay(retrySent: retrySent), .states), subscribing: true) ?? false
                }
            )
        }
        do {
            let start = source.addPublicationHandler { [weak self] publication in
                self?.publish(publication)
            }
            inbox.withLock { inbox in
                inbox.newestVersion = start.version
                inbox.journal = journal
            }
            let state = try stateCache.json(for: start)
            let frame = EventFrame.state(version: start.version, id: versionTags.tag(start.version), action: nil, state: state)
            latest = Latest(
                version: start.version,
                encoded: EncodedVersion(version: start.version, action: Array("null".utf8), state: state, frame: frame)
            )
            // The size estimate that bounds the resume history (and the lag budget) before any
            // later version is encoded.
            lastFrameBytes.store(frame.count, ordering: .relaxed)
        } catch {
            inbox.withLock { inbox in
                inbox.stopped = true
                inbox.finished = true
            }
            inbox.notifyAll()
            throw error
        }
        fanOut.start()
        let thread = Thread { [self] in run() }
        thread.name = "remvvm-events"
        thread.start()
    }

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
    private func opening(after lastEventId: String?, inbox: Inbox) -> Opening {
        guard let lastEventId else { return .hub(.current) }
        guard let version = versionTags.version(ofEventId: Substring(lastEventId)),
              version <= inbox.newestVersion else { return .hub(.reset) }
        if version == inbox.newestVersion { return .hub(.replay([])) }
        guard let first = inbox.history.first, first.version <= version + 1 else {
            return inbox.journal.map { .journal($0, after: version) } ?? .hub(.reset)
        }
        return .hub(.replay(inbox.history.filter { $0.version > version }))
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
        switch inbox.withLock({ opening(after: lastEventId, inbox: $0) }) {
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
        stream.onTermination { [weak self] reason in
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
        let (opening, wakePublisher) = inbox.withLock { inbox -> (Opening, Bool) in
            guard !inbox.stopped else { return (.stopped, false) }
            var opening = self.opening(after: lastEventId, inbox: inbox)
            if format == .jsonPatch {
                opening = Self.patchStreamOpening(opening)
            }
            guard case .hub(let resume) = opening else { return (opening, false) }
            inbox.listening = true
            inbox.pendingSubscribes += 1
            inbox.items.append(.subscribe(stream, resume, format))
            return (opening, inbox.items.count == 1)
        }
        if wakePublisher { inbox.notifyAll() }
        return opening
    }

    /// For a stream ``JournalReplay`` has sent every version through `version` (at most the
    /// newest published): when the ring holds the rest and it is short, queues the stream to
    /// join with it, under the inbox lock, like a new subscriber — so the versions it was sent
    /// and the ones that reach it from here meet without gap or repeat. Otherwise says where the
    /// next versions are: up to `ringLimit` of them from the ring, or the journal.
    func continueReplay(of stream: EventStream, after version: UInt64, ringLimit: Int) -> ReplayContinuation<State> {
        let handoverLimit = UInt64(max(1, min(64, broadcastLimitBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))))
        let (continuation, wakePublisher) = inbox.withLock { inbox -> (ReplayContinuation<State>, Bool) in
            guard !inbox.stopped else { return (.stopped, false) }
            var rest: [StatePublication<State>] = []
            if version < inbox.newestVersion {
                guard let first = inbox.history.first, first.version <= version + 1 else {
                    return (.journal(through: inbox.newestVersion), false)
                }
                let start = Int(version + 1 - first.version)
                guard inbox.newestVersion - version <= handoverLimit else {
                    let end = min(inbox.history.count, start + max(1, ringLimit))
                    return (.ring(Array(inbox.history[start..<end])), false)
                }
                rest = Array(inbox.history[start...])
            }
            inbox.listening = true
            inbox.pendingSubscribes += 1
            inbox.items.append(.subscribe(stream, .handover(rest), .states))
            return (.handedOver, inbox.items.count == 1)
        }
        if wakePublisher { inbox.notifyAll() }
        return continuation
    }

    /// The publication of `version` while the resume ring still holds it (view-model streams
    /// resuming after it compare with the view models it made).
    func publication(atVersion version: UInt64) -> StatePublication<State>? {
        inbox.withLock { inbox in
            guard let first = inbox.history.first, version >= first.version else { return nil }
            let index = Int(version - first.version)
            return index < inbox.history.count ? inbox.history[index] : nil
        }
    }

    /// Delivers what is queued, ends every stream, and stops the thread.
    func stop() {
        // First the journal replays: a stream still replaying ends where it is.
        inbox.withLock { $0.journal }?.stop()
        let wasStarted = inbox.withLock { inbox in
            inbox.stopped = true
            return inbox.started
        }
        inbox.notifyAll()
        if wasStarted {
            inbox.withLock(waitingUntil: \.finished) { _ in }
        }
    }

    /// The publication hook: on the store's processing thread, so it only touches the inbox.
    private func publish(_ publication: StatePublication<State>) {
        let limit = maxPendingPublications
        let historyLimit = self.historyLimit
        let wakePublisher = inbox.withLock { inbox -> Bool in
            guard !inbox.stopped else { return false }
            inbox.newestVersion = publication.version
            if historyLimit > 0 {
                inbox.history.append(publication)
                while inbox.history.count > historyLimit { inbox.history.removeFirst() }
            }
            guard inbox.listening else {
                inbox.aside = publication
                return false
            }
            if inbox.pendingPublications >= limit {
                inbox.dropPendingPublications()
                inbox.aside = publication
                return true
            }
            inbox.items.append(.publication(publication))
            inbox.pendingPublications += 1
            return inbox.items.count == 1
        }
        if wakePublisher { inbox.notifyAll() }
    }

    /// How many versions are kept for resuming streams: the count limit, and the byte budget over
    /// the size of a recent frame.
    private var historyLimit: Int {
        min(replayEvents, replayBytes / max(256, lastFrameBytes.load(ordering: .relaxed)))
    }

    /// How many versions may wait: the lag budget over the size of a recent frame.
    private var maxPendingPublications: Int {
        max(64, lagBudgetBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))
    }

    @discardableResult
    private func post(_ item: Item, subscribing: Bool = false) -> Bool {
        let (accepted, wakePublisher) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopped else { return (false, false) }
            if subscribing {
                inbox.listening = true
                inbox.pendingSubscribes += 1
            }
            inbox.items.append(item)
            return (true, inbox.items.count == 1)
        }
        if wakePublisher { inbox.notifyAll() }
        return accepted
    }

    private func run() {
        var items: [Item] = []
        while true {
            let (setAside, drop, stopping) = inbox.withLock(waitingUntil: \.hasWork) { inbox in
                swap(&items, &inbox.items)
                inbox.pendingPublications = 0
                inbox.pendingSubscribes = 0
                defer {
                    inbox.aside = nil
                    inbox.dropSubscribers = false
                }
                return (inbox.aside, inbox.dropSubscribers, inbox.stopped)
            }
            if drop {
                disconnectLaggingSubscribers()
            }
            if let setAside {
                remember(setAside)
            }
            process(items)
            items.removeAll(keepingCapacity: true)
            updateListening()
            if stopping {
                break
            }
        }
        fanOut.stop()
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        updateSubscriberTotal(0)
        sharedStatistics.withLock { $0 = statistics }
        logger.notice("event publishing stopped: \(statistics)")
        inbox.withLock { $0.finished = true }
        inbox.notifyAll()
    }

    private func process(_ items: [Item]) {
        for item in items {
            switch item {
            case .publication(let publication):
                statistics.versions += 1
                if !hasListeners {
                    remember(publication)
                } else if let encoded = encode(publication) {
                    latest = Latest(version: publication.version, encoded: encoded)
                    if states.hasListeners {
                        states.pending += encoded.frame
                    }
                    if patches.hasListeners {
                        patches.pending += patchFrames.frame(
                            for: encoded, id: versionTags.tag(encoded.version), statistics: &statistics, logger: logger
                        )
                    } else {
                        patchFrames.forget()
                    }
                    if states.pending.count >= broadcastLimitBytes || patches.pending.count >= broadcastLimitBytes {
                        broadcast()
                    }
                }
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
        broadcast()
        if !patches.hasListeners {
            patchFrames.forget()
        }
        // Before the count: whoever waits for subscribers then reads statistics that include
        // what their first events cost.
        sharedStatistics.withLock { $0 = statistics }
        updateSubscriberTotal(states.count + patches.count)
    }

    /// Whether any stream wants the next versions: subscribers, and streams awaiting their first.
    private var hasListeners: Bool {
        states.hasListeners || patches.hasListeners
    }

    /// A stream resumed at the newest version: a comment line alone (like the heartbeat), so that
    /// the response head goes out now (libmicrohttpd sends it with the first body bytes); it joins
    /// its channel at the next broadcast. A patch stream needs the newest tree for that one.
    private func startResumedAtNewest(_ stream: EventStream, format: EventFormat) {
        if format == .jsonPatch {
            guard let encoded = latestEncoded(), preparePatches(from: encoded) else {
                stream.close()
                return
            }
        }
        guard stream.send(Self.resumedComment) else { return }
        switch format {
        case .states: states.awaitFirstEvent(stream)
        case .jsonPatch: patches.awaitFirstEvent(stream)
        }
    }

    /// Sends a new patch stream the full newest state (marked as a reset for ``Resume/reset``) and
    /// takes it in, with the newest tree kept for the next version's patch.
    private func startPatchStream(_ stream: EventStream, _ resume: Resume) {
        guard let encoded = latestEncoded(), preparePatches(from: encoded) else {
            stream.close()  // the newest state cannot be encoded or parsed (logged)
            return
        }
        var frame = encoded.frame
        if case .reset = resume {
            frame = EventFrame.markedAsReset(frame, version: encoded.version, id: versionTags.tag(encoded.version))
        }
        if stream.send(retryField, frame) {
            patches.insert(stream)
        }
    }

    /// Keeps the tree of `encoded` for the next patch; false (logged) if its JSON does not parse.
    private func preparePatches(from encoded: EncodedVersion) -> Bool {
        do {
            try patchFrames.prepare(encoded, statistics: &statistics)
            return true
        } catch {
            logger.error("state version \(encoded.version) cannot be parsed for a patch stream: \(error)")
            return false
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
        logger.warning(
            "event publishing fell more than \(lagBudgetBytes) bytes behind the store; disconnecting \(states.count + patches.count) subscribers so they restart from the current state"
        )
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        patchFrames.forget()
    }

    /// With no subscriber left and none arriving, publications go aside again.
    private func updateListening() {
        guard !hasListeners else { return }
        inbox.withLock { inbox in
            if inbox.pendingSubscribes == 0 && inbox.items.isEmpty {
                inbox.listening = false
            }
        }
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
        sharedStatistics.withLock { $0 = statistics }
        for deliveries in [
            states.broadcast(through: fanOut, retryField: retryField),
            patches.broadcast(through: fanOut, retryField: retryField),
        ] {
            guard let deliveries else { continue }
            statistics.broadcasts += 1
            statistics.deliveries += deliveries
        }
        sharedStatistics.withLock { $0 = statistics }
    }

    private func encode(_ publication: StatePublication<State>) -> EncodedVersion? {
        do {
            let encoded = try frames.encode(publication)
            statistics.statesEncoded += 1
            stateCache.remember(encoded.state, version: publication.version)
            lastFrameBytes.store(encoded.frame.count, ordering: .relaxed)
            return encoded
        } catch {
            logger.error("state version \(publication.version) cannot be encoded: \(error)")
            return nil
        }
    }
}
