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
///
/// This file holds the shared parts; how a new stream begins is in `EventHub+Subscribing.swift`,
/// the publisher thread's work in `EventHub+Publishing.swift`. Their members are internal only so
/// that those files can reach them: nothing outside the hub uses them.
final class EventHub<State: StoreState & Encodable>: @unchecked Sendable {
    // @unchecked: the fields under "Publisher thread only" are touched by the publisher thread
    // alone (`EventHub+Publishing.swift`, and `start()` before the thread exists); everything
    // shared lives in `inbox`'s lock.
    enum Item {
        case publication(StatePublication<State>)
        case subscribe(EventStream, Resume, EventFormat)
        case unsubscribe(ObjectIdentifier)
    }

    /// What the store's thread, HTTP workers and the publisher thread share.
    struct Inbox {
        var items: [Item] = []
        var pendingPublications = 0
        var pendingSubscribes = 0
        var listening = false
        var aside: StatePublication<State>?
        /// How many publications were set aside (``EventStatistics/versionsSetAside``), since the
        /// hub started.
        var versionsSetAside = 0
        /// The newest publications, every version, for streams that resume (`Last-Event-ID`);
        /// bounded by ``historyLimit``.
        var history: Deque<StatePublication<State>> = []
        /// The newest version published (or the start version).
        var newestVersion: UInt64 = 0
        var dropSubscribers = false
        /// Rebuilds versions older than `history` from the journal; nil without one.
        var journal: JournalReplay<State>?
        /// Without a journal, the state the hub started at (the ring holds publications only, so
        /// the state before the first one would be unknown to view-model streams resuming after it).
        var start: StoreSnapshot<State>?
        var started = false
        var stopped = false
        /// Set by the publisher thread when it has ended every stream and exits.
        var finished = false

        /// Whether the publisher thread has something to do.
        var hasWork: Bool { !items.isEmpty || stopped || dropSubscribers }

        /// The publisher is too far behind: drop the versions waiting and the subscribers.
        mutating func dropPendingPublications() {
            items.removeAll { if case .publication = $0 { true } else { false } }
            versionsSetAside += pendingPublications
            pendingPublications = 0
            dropSubscribers = true
        }
    }

    /// The newest state and, once a subscriber needed it, its encoding.
    struct Latest {
        var version: UInt64
        var publication: StatePublication<State>?
        var encoded: EncodedVersion?
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
    /// The most versions kept for resuming streams, and the bytes they may take (estimated from
    /// the size of recent frames).
    let replayEvents: Int
    let replayBytes: Int

    let inbox = Lock(Inbox())

    // Publisher thread only (see the @unchecked note above):
    /// The `state` streams (plain `GET /events`).
    var states = EventChannel()
    /// The `patch` streams (`GET /events?delta=json-patch`).
    var patches = EventChannel()
    /// The previous version's tree, and the patch of each version, for `patches`.
    var patchFrames = PatchFrameEncoder()
    let fanOut = FanOutPool(threads: ProcessInfo.processInfo.activeProcessorCount)
    var latest: Latest
    let subscriberTotal = Atomic<Int>(0)
    /// Told whenever `subscriberTotal` changes.
    let subscriberChanges = ChangeSignal()
    let lastFrameBytes = Atomic<Int>(256)
    var statistics = EventStatistics()
    /// `statistics` as of the last broadcast, for other threads.
    let sharedStatistics = Lock(EventStatistics())

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

    /// What the publisher has done so far (as of its last broadcast), with every version set aside
    /// until now (those do not wake the publisher).
    var currentStatistics: EventStatistics {
        var statistics = sharedStatistics.withLock { $0 }
        statistics.versionsSetAside = inbox.withLock { $0.versionsSetAside }
        return statistics
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

    func updateSubscriberTotal(_ count: Int) {
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
                inbox.start = journal == nil ? start : nil
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
    func publish(_ publication: StatePublication<State>) {
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
                inbox.versionsSetAside += 1
                return false
            }
            if inbox.pendingPublications >= limit {
                inbox.dropPendingPublications()
                inbox.aside = publication
                inbox.versionsSetAside += 1
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
    var historyLimit: Int {
        min(replayEvents, replayBytes / max(256, lastFrameBytes.load(ordering: .relaxed)))
    }

    /// How many versions may wait: the lag budget over the size of a recent frame.
    var maxPendingPublications: Int {
        max(64, lagBudgetBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))
    }

    @discardableResult
    func post(_ item: Item, subscribing: Bool = false) -> Bool {
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

}
