import Foundation
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
/// set aside is older than every version in the inbox.
///
/// The inbox is bounded: when the thread falls so far behind that the versions waiting would take
/// more than `lagBudgetBytes` to send, they are dropped and the current subscribers disconnected;
/// they reconnect and start again from the newest state. Memory never grows without limit.
final class EventHub<State: StoreState & Encodable>: @unchecked Sendable {
    // @unchecked: the fields under "Publisher thread only" are touched by the publisher thread
    // alone (and by `start()` before it exists); everything shared lives in `inbox`'s lock.
    private enum Item {
        case publication(StatePublication<State>)
        case subscribe(EventStream)
        case unsubscribe(ObjectIdentifier)
    }

    /// What the store's thread, HTTP workers and the publisher thread share.
    private struct Inbox {
        var items: [Item] = []
        var pendingPublications = 0
        var pendingSubscribes = 0
        var listening = false
        var aside: StatePublication<State>?
        var dropSubscribers = false
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

    /// The newest state and, once a subscriber needed it, its frame.
    private struct Latest {
        var version: UInt64
        var publication: StatePublication<State>?
        var frame: [UInt8]?
    }

    private let actionEncoder: ActionWireEncoder
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

    private let inbox = Lock(Inbox())

    // Publisher thread only (see the @unchecked note above):
    private var subscribers = SubscriberSet()
    private let fanOut = FanOutPool(threads: ProcessInfo.processInfo.activeProcessorCount)
    private var latest: Latest
    private let subscriberTotal = Atomic<Int>(0)
    /// Told whenever `subscriberTotal` changes.
    private let subscriberChanges = ChangeSignal()
    private let lastFrameBytes = Atomic<Int>(256)
    private var statistics = EventStatistics()

    init(
        actions: ActionRegistry,
        stateCache: EncodedStateCache<State>,
        backlogBytes: Int,
        lagBudgetBytes: Int,
        reconnectDelay: Duration,
        versionTags: VersionTags,
        logger: Logger
    ) {
        self.actionEncoder = ActionWireEncoder(registry: actions)
        self.stateCache = stateCache
        self.backlogBytes = backlogBytes
        self.lagBudgetBytes = lagBudgetBytes
        broadcastLimitBytes = min(64 << 10, max(4 << 10, backlogBytes / 4))
        retryField = EventFrame.retry(reconnectDelay)
        self.versionTags = versionTags
        self.logger = logger
        latest = Latest(version: 0)
    }

    /// The number of connected subscribers.
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
        do {
            let start = source.addPublicationHandler { [weak self] publication in
                self?.publish(publication)
            }
            latest = Latest(
                version: start.version,
                frame: EventFrame.state(
                    version: start.version,
                    id: versionTags.tag(start.version),
                    action: nil,
                    state: try stateCache.json(for: start)
                )
            )
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

    /// A new subscriber's stream; its first event is the newest state, then every later version.
    func subscribe() -> EventStream {
        let stream = EventStream(maxPendingBytes: backlogBytes)
        let id = ObjectIdentifier(stream)
        let logger = logger
        let backlogBytes = backlogBytes
        stream.onTermination { [weak self] reason in
            switch reason {
            case .overflow:
                logger.warning("event subscriber disconnected: it fell more than \(backlogBytes) bytes behind")
            case .stalled:
                logger.warning("event subscriber disconnected: it read nothing for a heartbeat interval while events waited")
            default:
                logger.debug("event subscriber ended", metadata: ["reason": "\(reason)"])
            }
            self?.post(.unsubscribe(id))
        }
        if !post(.subscribe(stream)) {
            stream.close()
        }
        return stream
    }

    /// Delivers what is queued, ends every stream, and stops the thread.
    func stop() {
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
        let wakePublisher = inbox.withLock { inbox -> Bool in
            guard !inbox.stopped else { return false }
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

    /// How many versions may wait: the lag budget over the size of a recent frame.
    private var maxPendingPublications: Int {
        max(64, lagBudgetBytes / max(1, lastFrameBytes.load(ordering: .relaxed)))
    }

    @discardableResult
    private func post(_ item: Item) -> Bool {
        let (accepted, wakePublisher) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopped else { return (false, false) }
            if case .subscribe = item {
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
        for stream in subscribers.removeAll() {
            stream.close()
        }
        updateSubscriberTotal(0)
        logger.notice("event publishing stopped: \(statistics)")
        inbox.withLock { $0.finished = true }
        inbox.notifyAll()
    }

    private func process(_ items: [Item]) {
        var pending: [UInt8] = []
        for item in items {
            switch item {
            case .publication(let publication):
                statistics.versions += 1
                if subscribers.isEmpty {
                    remember(publication)
                } else if let frame = frame(for: publication) {
                    latest = Latest(version: publication.version, frame: frame)
                    pending += frame
                    if pending.count >= broadcastLimitBytes {
                        broadcast(&pending)
                    }
                }
            case .subscribe(let stream):
                broadcast(&pending)
                guard let frame = latestFrame() else {
                    stream.close()  // the newest state cannot be encoded (logged): nothing to stream
                    continue
                }
                // `retry:` in the first event's block, without copying the frame.
                if stream.send(retryField, frame) {
                    subscribers.insert(stream)
                }
            case .unsubscribe(let id):
                subscribers.remove(id)
            }
        }
        broadcast(&pending)
        updateSubscriberTotal(subscribers.count)
    }

    /// Stops sending to subscribers that can no longer be caught up (see the type's documentation).
    private func disconnectLaggingSubscribers() {
        guard !subscribers.isEmpty else { return }
        logger.warning(
            "event publishing fell more than \(lagBudgetBytes) bytes behind the store; disconnecting \(subscribers.count) subscribers so they restart from the current state"
        )
        for stream in subscribers.removeAll() {
            stream.close()
        }
    }

    /// With no subscriber left and none arriving, publications go aside again.
    private func updateListening() {
        guard subscribers.isEmpty else { return }
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

    /// The newest state's frame, encoded now if nobody needed it before.
    private func latestFrame() -> [UInt8]? {
        if let frame = latest.frame {
            return frame
        }
        guard let publication = latest.publication, let frame = frame(for: publication) else { return nil }
        latest.frame = frame
        latest.publication = nil
        return frame
    }

    private func broadcast(_ pending: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        fanOut.send(pending, to: subscribers.streams())
        statistics.broadcasts += 1
        statistics.deliveries += subscribers.count
        pending = []
    }

    private func frame(for publication: StatePublication<State>) -> [UInt8]? {
        do {
            let state = try JSONCoding.encode(publication.state)
            statistics.statesEncoded += 1
            stateCache.remember(state, version: publication.version)
            let frame = EventFrame.state(
                version: publication.version,
                id: versionTags.tag(publication.version),
                action: actionEncoder.encode(publication.action),
                state: state
            )
            lastFrameBytes.store(frame.count, ordering: .relaxed)
            return frame
        } catch {
            logger.error("state version \(publication.version) cannot be encoded: \(error)")
            return nil
        }
    }
}
