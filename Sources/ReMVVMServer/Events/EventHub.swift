import ConcurrencyKit
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
/// set aside is older than every version in the inbox. With a journal behind the hub it does not
/// even take them (``PublicationDemand``): over many stores, a store nobody follows costs its
/// commit one atomic load, and the hub catches up from its source's newest state when it is next
/// looked at (`EventHub+Demand.swift`).
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
///
/// The hub owns no thread: its work runs as a ``SerialLane`` (one job at a time, in order) on a
/// ``WorkerPool`` shared by every store, and an idle hub costs nothing but memory. What the lane
/// alone touches lives in the lane (``EventPublisher``), so the hub is `Sendable` as it stands.
///
/// This file holds the shared parts; how a new stream begins is in `EventHub+Subscribing.swift`,
/// the lane's work in `EventPublisher.swift`. Their members are internal only so that those files
/// can reach them: nothing outside the hub uses them.
final class EventHub<State: StoreState & Encodable>: Sendable {
    enum Item {
        case subscribe(EventStream, Resume, EventFormat)
        case unsubscribe(ObjectIdentifier)
    }

    let frames: StateFrameEncoder
    let stateCache: EncodedStateCache<State>
    let backlogBytes: Int
    let lagBudgetBytes: Int
    /// The most bytes of queued events sent as one buffer (a single event may be larger): a
    /// quarter of the backlog limit, at most 64 KiB.
    let broadcastLimitBytes: Int
    /// `retry: <ms>` — the reconnect delay, at the start of every stream's first event.
    let retryField: [UInt8]
    let versionTags: VersionTags
    let logger: Logger
    /// Counts subscribers that end, by reason (nil: metrics off).
    let metrics: ServiceMetrics?
    /// The most versions kept for resuming streams.
    let replayEvents: Int
    /// The bytes those versions may take, shared with every other store's ring (estimated from
    /// the size of recent frames).
    let ringBudget: SharedBudget

    let inbox = Lock(EventHubInbox())
    /// Whether the publication handler passes publications on: with a history behind the hub,
    /// only while a stream listens or is on its way (set under the inbox lock with the inbox's
    /// `listening`); without one, always — the ring is then the only history.
    let demand = PublicationDemand()
    /// With a history behind the hub: how long it keeps taking publications after its last
    /// stream left (``EventHub/stopListeningIfIdle(_:)``).
    let idleGrace: Duration
    /// Where the hub's work runs; holds the ``EventPublisher`` from ``start(source:)`` to the end
    /// of ``stop()``.
    let lane: SerialLane<EventPublisher<State>?>
    /// Large broadcasts are shared with the lane's pool.
    let fanOut: FanOutPool
    let subscriberTotal = Atomic<Int>(0)
    /// Streams subscribed and not ended, wherever they are: queued for the lane, rebuilt from the
    /// journal, or at the lane (``subscriberTotal`` counts only the last). What keeps a store
    /// loaded (``hasOpenStreams``).
    let openStreams = Atomic<Int>(0)
    /// Told whenever `subscriberTotal` changes.
    let subscriberChanges = ChangeSignal()
    let lastFrameBytes = Atomic<Int>(256)
    /// The publisher's statistics as of the last broadcast, for other threads.
    let sharedStatistics = Lock(EventStatistics())

    init(
        actions: ActionRegistry,
        stateCache: EncodedStateCache<State>,
        backlogBytes: Int,
        lagBudgetBytes: Int,
        reconnectDelay: Duration,
        idleGrace: Duration,
        versionTags: VersionTags,
        replayEvents: Int,
        ringBudget: SharedBudget,
        metrics: ServiceMetrics? = nil,
        pool: WorkerPool = .shared,
        logger: Logger
    ) {
        self.metrics = metrics
        self.replayEvents = max(0, replayEvents)
        self.ringBudget = ringBudget
        frames = StateFrameEncoder(actions: ActionWireEncoder(registry: actions), versionTags: versionTags)
        self.stateCache = stateCache
        self.backlogBytes = backlogBytes
        self.lagBudgetBytes = lagBudgetBytes
        broadcastLimitBytes = min(64 << 10, max(4 << 10, backlogBytes / 4))
        retryField = EventFrame.retry(reconnectDelay)
        self.idleGrace = idleGrace
        self.versionTags = versionTags
        self.logger = logger
        lane = SerialLane(named: "remvvm-events", pool: pool, capacity: 16, confined: nil)
        fanOut = FanOutPool(pool: pool)
    }

    /// What the publisher has done so far (as of its last broadcast), with every version set aside
    /// until now (those do not wake the publisher).
    var currentStatistics: EventStatistics {
        var statistics = sharedStatistics.withLock { $0 }
        statistics.versionsSetAside = withInboxCaughtUp { $0.publications.versionsSetAside }
        return statistics
    }

    /// The number of connected subscribers, of either format.
    var subscriberCount: Int {
        subscriberTotal.load(ordering: .relaxed)
    }

    /// Whether a stream of this hub is open: counted from its subscription to its end, so also
    /// while it waits for the lane or is rebuilt from the journal.
    var hasOpenStreams: Bool {
        openStreams.load(ordering: .relaxed) > 0
    }

    /// Waits until `condition` holds for the subscriber count, re-checking it whenever the count
    /// changes; false after `timeout`.
    func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        subscriberChanges.wait(timeout: timeout) { condition(subscriberCount) }
    }

    func updateSubscriberTotal(_ count: Int) {
        if subscriberTotal.exchange(count, ordering: .relaxed) != count {
            subscriberChanges.changed()
        }
    }

    /// Hooks into `source` (the store, or the commit gate) and gives the lane its publisher; does
    /// nothing if it was started (or stopped) before. Throws if the current state cannot be encoded.
    func start(source: any StatePublisher<State>) throws {
        let claimed = inbox.withLock { inbox -> Bool in
            guard !inbox.claimed, !inbox.publications.stopped else { return false }
            inbox.claimed = true
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
            // Wanted until the inbox says whether a stream is on its way: a stream posted before
            // the start misses nothing published meanwhile.
            demand.set(true)
            let skipsWhileIdle = journal != nil
            let start: StoreSnapshot<State>
            if skipsWhileIdle {
                start = source.addPublicationHandler({ [weak self, demand] publication in
                    // Nobody listens: the hub catches up from `newestOfSource` when looked at.
                    guard demand.isWanted else { return }
                    self?.publish(publication)
                }, demand: demand)
            } else {
                start = source.addPublicationHandler { [weak self] publication in self?.publish(publication) }
            }
            inbox.withLock { inbox in
                // A publication may have come between the handler and here.
                inbox.newestVersion = max(inbox.newestVersion, start.version)
                inbox.journal = journal
                inbox.start = journal == nil ? start : nil
                if skipsWhileIdle {
                    inbox.newestOfSource = { source.snapshot }
                    if !inbox.publications.listening { demand.set(false) }
                }
            }
            let state = try stateCache.json(for: start)
            let frame = EventFrame.state(version: start.version, id: versionTags.tag(start.version), action: nil, state: state)
            let latest = EventPublisher<State>.Latest(
                version: start.version,
                encoded: EncodedVersion(version: start.version, action: Array("null".utf8), state: state, frame: frame)
            )
            lane.submit { [self] publisher in publisher = EventPublisher(hub: self, latest: latest) }
            // The size estimate that bounds the resume history (and the lag budget) before any
            // later version is encoded.
            lastFrameBytes.store(frame.count, ordering: .relaxed)
        } catch {
            inbox.withLock { inbox in
                _ = inbox.publications.stop()
                inbox.publications.finished = true
            }
            inbox.notifyAll()
            throw error
        }
        // What was posted before the start (streams that came early, a stop) waits for this drain.
        inbox.withLock { inbox in
            inbox.started = true
            _ = inbox.publications.needsWake()
        }
        wakeLane()
    }

    /// Delivers what is queued, ends every stream, and waits for the lane to finish.
    func stop() {
        // First the journal replays: a stream still replaying ends where it is.
        inbox.withLock { journal(in: $0) }?.stop()
        // Caught up first: the versions skipped while nobody listened count in the last statistics.
        let (wake, wasStarted) = withInboxCaughtUp { inbox in
            (inbox.publications.stop(), inbox.started)
        }
        guard wasStarted else { return }
        if wake { wakeLane() }
        inbox.withLock(waitingUntil: \.publications.finished) { _ in }
        ringBudget.leave(ObjectIdentifier(self))
    }

    deinit {
        ringBudget.leave(ObjectIdentifier(self))
    }

    /// Queues a drain of the inbox on the lane (once per batch: ``PublicationInbox/needsWake()``).
    func wakeLane() {
        lane.submit { publisher in
            if publisher?.drain() == true {
                publisher = nil
            }
        }
    }

    /// The publication hook: on the store's processing thread, so it only touches the inbox.
    func publish(_ publication: StatePublication<State>) {
        let limit = maxPendingPublications
        let (wake, joinsBudget) = inbox.withLock { inbox -> (Bool, Bool) in
            // Not a version the hub caught up to meanwhile (``withInboxCaughtUp(_:)``).
            guard !inbox.publications.stopped, publication.version > inbox.newestVersion else { return (false, false) }
            inbox.newestVersion = publication.version
            let historyLimit = self.historyLimit(joining: !inbox.keepsVersions)
            var joinsBudget = false
            if historyLimit > 0 {
                inbox.history.append(ErasedPublication(publication))
                joinsBudget = !inbox.keepsVersions
                inbox.keepsVersions = true
            }
            inbox.trimHistory(to: historyLimit)
            let wake = inbox.publications.publish(publication, limit: limit) && inbox.started
                && inbox.publications.needsWake()
            if let graceEnds = inbox.idleGraceEnds {
                endIdleGraceIfPast(graceEnds, &inbox)
            }
            return (wake, joinsBudget)
        }
        if joinsBudget { joinRingBudget() }
        if wake { wakeLane() }
    }

    /// Counts this hub's ring in the shared budget (its first version kept), which may trim
    /// every ring, this one among them: outside the inbox lock.
    func joinRingBudget() {
        ringBudget.join(ObjectIdentifier(self)) { [weak self] in
            self?.trimHistory()
        }
    }

    /// Cuts the ring to its share of the budget now (others joined since its last version).
    func trimHistory() {
        inbox.withLock { inbox in
            inbox.trimHistory(to: historyLimit(joining: !inbox.keepsVersions))
        }
    }

    /// How many versions are kept for resuming streams: the count limit, and this ring's share of
    /// the byte budget over the size of a recent frame (`joining` while it keeps none yet).
    func historyLimit(joining: Bool) -> Int {
        min(replayEvents, ringBudget.share(joining: joining) / max(256, lastFrameBytes.load(ordering: .relaxed)))
    }

    /// How many versions may wait: the lag budget over the size of a recent frame.
    var maxPendingPublications: Int {
        max(64, lagBudgetBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))
    }

    /// Queues `item` for the lane (a new listener when `subscribing`); false when stopped.
    @discardableResult
    func post(_ item: Item, subscribing: Bool = false) -> Bool {
        let post = { (inbox: inout EventHubInbox) -> (Bool, Bool) in
            guard inbox.publications.post(item, listens: subscribing) else { return (false, false) }
            return (true, inbox.started && inbox.publications.needsWake())
        }
        // A new listener starts from the newest state: caught up first.
        let (accepted, wake) = subscribing ? withInboxCaughtUp(post) : inbox.withLock(post)
        if wake { wakeLane() }
        return accepted
    }

}
