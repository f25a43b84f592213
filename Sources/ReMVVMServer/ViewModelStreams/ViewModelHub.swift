import ConcurrencyKit
import Logging
import MicroHTTP
import ReMVVM
import Synchronization

/// Streams view models (`GET /viewmodels/<name>/events`, `GET /viewmodels/events`): each stream
/// follows one or more (name, key) ``ViewModelGroup``s and gets an event only when a new state
/// changes one of them.
///
/// Like ``EventHub``, one lane (``ViewModelPublisher`` on a ``SerialLane`` of a shared
/// ``WorkerPool``: no thread of its own) takes a ``PublicationInbox`` in order — publications, new streams, departures
/// — so a stream's first events and the changes after them have no gap and no repeat. Each group
/// makes its view model once per version whatever the number of its streams, compares it with the
/// previous one, and encodes it only when it changed; while no stream is open, publications are
/// not even taken (``PublicationDemand``): the first stream starts from the source's newest state.
///
/// A stream gets its events in version order (several view models of one version in the order
/// the stream asked for them), gathered per batch of versions and sent as one write. Streams
/// follow the same rules as `/events`: a bounded backlog per stream, and when the lane falls
/// more than ``maxPendingPublications`` versions behind, every stream is ended — clients
/// reconnect with `Last-Event-ID` and get what changed.
final class ViewModelHub<State: StoreState>: Sendable {
    enum Item {
        case subscribe(ViewModelSubscription)
        case unsubscribe(ObjectIdentifier)
    }

    /// How far ``start(source:)`` got.
    private struct Phase {
        var claimed = false
        var started = false
        /// Where the publications come from, once started.
        var source: (any StatePublisher<State>)?
    }

    /// The most versions that may wait for the lane before every stream is ended.
    let maxPendingPublications: Int
    let registry: ViewModelRegistry<State>
    let versionTags: VersionTags
    let retryField: [UInt8]
    private let backlogBytes: Int
    /// Counts streams that end, by reason (nil: metrics off), as ``EventHub`` does.
    private let metrics: ServiceMetrics?
    let logger: Logger
    let inbox = Lock(PublicationInbox())
    /// Whether the publication handler passes publications on: set with the inbox's `listening`
    /// (under the inbox's lock).
    let demand = PublicationDemand()
    /// ``start(source:)`` has begun (and its source); the lane has its publisher.
    private let phase = Lock(Phase())
    /// Where the hub's work runs; holds the ``ViewModelPublisher`` from ``start(source:)`` to the
    /// end of ``stop()``.
    private let lane: SerialLane<ViewModelPublisher<State>?>

    private let streamCount = Atomic<Int>(0)
    /// Streams subscribed and not ended, queued for the lane or at it (``streamCount`` counts
    /// only the latter): what keeps a store loaded (``hasOpenStreams``).
    private let openStreams = Atomic<Int>(0)
    let work = ViewModelWork()
    private let streamChanges = ChangeSignal()

    init(
        registry: ViewModelRegistry<State>,
        versionTags: VersionTags,
        reconnectDelay: Duration,
        backlogBytes: Int,
        maxPendingPublications: Int = 4_096,
        metrics: ServiceMetrics? = nil,
        pool: WorkerPool = .shared,
        logger: Logger
    ) {
        self.metrics = metrics
        self.registry = registry
        self.versionTags = versionTags
        retryField = EventFrame.retry(reconnectDelay)
        self.backlogBytes = backlogBytes
        self.maxPendingPublications = max(1, maxPendingPublications)
        self.logger = logger
        lane = SerialLane(named: "remvvm-viewmodels", pool: pool, capacity: 16, confined: nil)
    }

    /// The number of open view-model streams.
    var subscriberCount: Int {
        streamCount.load(ordering: .relaxed)
    }

    /// Whether a stream of this hub is open, from its subscription to its end.
    var hasOpenStreams: Bool {
        openStreams.load(ordering: .relaxed) > 0
    }

    /// How many view models the streams made, and how many of them were encoded, since start.
    var statistics: (made: Int, encoded: Int) {
        (work.made.load(ordering: .relaxed), work.encoded.load(ordering: .relaxed))
    }

    /// Waits until `condition` holds for the stream count, re-checking whenever it changes; false
    /// after `timeout`.
    func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        streamChanges.wait(timeout: timeout) { condition(subscriberCount) }
    }

    /// Called by the lane with the streams it holds.
    func updateStreamCount(_ count: Int) {
        if streamCount.exchange(count, ordering: .relaxed) != count {
            streamChanges.changed()
        }
    }

    /// Hooks into `source` and gives the lane its publisher; does nothing when started (or
    /// stopped) before.
    func start(source: any StatePublisher<State>) {
        let claimed = phase.withLock { phase -> Bool in
            guard !phase.claimed else { return false }
            phase.claimed = true
            return true
        }
        guard claimed, !inbox.withLock({ $0.stopped }) else { return }
        phase.withLock { $0.source = source }
        let latest = source.addPublicationHandler({ [weak self, demand] publication in
            // Nobody follows: the version is skipped. A stream that comes starts from the
            // source's snapshot, read after `demand` was set (``post(_:)``).
            guard demand.isWanted else { return }
            self?.publish(publication)
        }, demand: demand)
        lane.submit { [self] publisher in publisher = ViewModelPublisher(hub: self, latest: latest) }
        phase.withLock { $0.started = true }
        // What was posted before the start (streams that came early, a stop) waits for this drain.
        _ = inbox.withLock { $0.needsWake() }
        wakeLane()
    }

    /// Ends every stream and waits for the lane to finish.
    func stop() {
        let wake = inbox.withLock { $0.stop() }
        guard phase.withLock({ $0.started }) else { return }
        if wake { wakeLane() }
        inbox.withLock(waitingUntil: \.finished) { _ in }
    }

    /// Opens a stream for `subjects` (each registered), starting as `start` says.
    func subscribe(_ subjects: [ViewModelSubject], start: ViewModelSubscription.Start) -> EventStream {
        let stream = EventStream(maxPendingBytes: backlogBytes)
        let id = ObjectIdentifier(stream)
        let logger = logger
        let metrics = metrics
        openStreams.add(1, ordering: .relaxed)
        stream.onTermination { [weak self] reason in
            self?.openStreams.subtract(1, ordering: .relaxed)
            metrics?.subscriberDisconnected(reason: ServiceMetrics.disconnectReason(reason))
            if reason == .overflow {
                logger.warning("view-model subscriber disconnected: it fell too far behind")
            }
            self?.post(.unsubscribe(id))
        }
        if !post(.subscribe(ViewModelSubscription(stream: stream, subjects: subjects, start: start))) {
            stream.close()
        }
        return stream
    }

    /// The store's publication hook: on the store's (or the journal's) thread, touches the inbox only.
    private func publish(_ publication: StatePublication<State>) {
        let limit = maxPendingPublications
        let wake = inbox.withLock { $0.publish(publication, limit: limit) && $0.needsWake() }
        if wake { wakeLane() }
    }

    @discardableResult
    private func post(_ item: Item) -> Bool {
        let listens = if case .subscribe = item { true } else { false }
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            let first = listens && !inbox.listening
            guard inbox.post(item, listens: listens) else { return (false, false) }
            if first {
                catchUp(&inbox)
            }
            return (true, inbox.needsWake())
        }
        if wake, phase.withLock({ $0.started }) { wakeLane() }
        return accepted
    }

    /// Under the inbox's lock, as a stream is queued while nobody followed: publications are
    /// wanted again, and the source's newest state is set aside for the lane to start from, since
    /// the versions before were skipped.
    ///
    /// None is missed: the source sets its snapshot to a version (under its lock) before its
    /// handler asks `demand`; the snapshot is read here (under that lock) after `demand` was set.
    /// So a handler that found `demand` unset published a version no newer than this snapshot,
    /// and a version published after goes into the inbox after the stream's entry. Before
    /// ``start(source:)`` there is nothing to catch up: the publisher starts from the snapshot
    /// the handler was added at.
    private func catchUp(_ inbox: inout PublicationInbox) {
        demand.set(true)
        guard let source = phase.withLock({ $0.source }) else { return }
        let newest = source.snapshot
        if let aside = inbox.setAside, PublicationInbox.snapshot(aside, as: State.self).version >= newest.version {
            return
        }
        inbox.replaceSetAside(with: newest)
    }

    /// Queues a drain of the inbox on the lane (once per batch: ``PublicationInbox/needsWake()``).
    private func wakeLane() {
        lane.submit { publisher in
            if publisher?.drain() == true {
                publisher = nil
            }
        }
    }
}
