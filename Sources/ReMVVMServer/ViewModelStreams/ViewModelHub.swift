import ConcurrencyKit
import Foundation
import Logging
import MicroHTTP
import ReMVVM
import Synchronization

/// Streams view models (`GET /viewmodels/<name>/events`, `GET /viewmodels/events`): each stream
/// follows one or more (name, key) ``ViewModelGroup``s and gets an event only when a new state
/// changes one of them.
///
/// Like ``EventHub``, one thread takes an inbox in order — publications, new streams, departures
/// — so a stream's first events and the changes after them have no gap and no repeat. Each group
/// makes its view model once per version whatever the number of its streams, compares it with the
/// previous one, and encodes it only when it changed; while no stream is open, publications only
/// replace the newest one kept aside: no view model is made at all.
///
/// A stream gets its events in version order (several view models of one version in the order
/// the stream asked for them), gathered per batch of versions and sent as one write. Streams
/// follow the same rules as `/events`: a bounded backlog per stream, and when the thread falls
/// more than ``maxPendingPublications`` versions behind, every stream is ended — clients
/// reconnect with `Last-Event-ID` and get what changed.
final class ViewModelHub<State: StoreState>: @unchecked Sendable {
    // @unchecked: the fields under "Hub thread only" are touched by the hub's thread alone (and
    // by `start()` before it exists); everything shared lives in `inbox`'s lock.
    private enum Item {
        case publication(StatePublication<State>)
        case subscribe(ViewModelSubscription)
        case unsubscribe(ObjectIdentifier)
    }

    private struct Inbox {
        var items: [Item] = []
        var pendingPublications = 0
        var listening = false
        var aside: StatePublication<State>?
        var dropStreams = false
        var started = false
        var stopped = false
        var finished = false

        var hasWork: Bool { !items.isEmpty || stopped || dropStreams }
    }

    /// A stream on the hub's thread: what it follows and what waits to be sent to it.
    private struct Follower {
        let stream: EventStream
        let subjects: [ViewModelSubject]
        /// No event sent yet: the next send starts with `retry:`.
        var awaitsFirstEvent: Bool
        var pending: [[UInt8]] = []
    }

    /// The most versions that may wait for the hub's thread before every stream is ended.
    let maxPendingPublications: Int
    private let registry: ViewModelRegistry<State>
    private let versionTags: VersionTags
    private let retryField: [UInt8]
    private let backlogBytes: Int
    /// Counts streams that end, by reason (nil: metrics off), as ``EventHub`` does.
    private let metrics: ServiceMetrics?
    private let logger: Logger
    private let inbox = Lock(Inbox())

    // Hub thread only (see the @unchecked note above):
    private var latest = StoreSnapshot<State>?.none
    private var groups: [ViewModelSubject: ViewModelGroup<State>] = [:]
    private var followers: [ObjectIdentifier: Follower] = [:]
    /// Streams resuming after a version the hub has not reached yet: they join when it has.
    private var waiting: [ViewModelSubscription] = []
    /// Followers with events gathered and not sent.
    private var dirty: Set<ObjectIdentifier> = []

    private let streamCount = Atomic<Int>(0)
    private let work = ViewModelWork()
    private let streamChanges = ChangeSignal()

    init(
        registry: ViewModelRegistry<State>,
        versionTags: VersionTags,
        reconnectDelay: Duration,
        backlogBytes: Int,
        maxPendingPublications: Int = 4_096,
        metrics: ServiceMetrics? = nil,
        logger: Logger
    ) {
        self.metrics = metrics
        self.registry = registry
        self.versionTags = versionTags
        retryField = EventFrame.retry(reconnectDelay)
        self.backlogBytes = backlogBytes
        self.maxPendingPublications = max(1, maxPendingPublications)
        self.logger = logger
    }

    /// The number of open view-model streams.
    var subscriberCount: Int {
        streamCount.load(ordering: .relaxed)
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

    /// Hooks into `source` and starts the hub's thread; does nothing when started (or stopped)
    /// before.
    func start(source: any StatePublisher<State>) {
        let claimed = inbox.withLock { inbox -> Bool in
            guard !inbox.started, !inbox.stopped else { return false }
            inbox.started = true
            return true
        }
        guard claimed else { return }
        latest = source.addPublicationHandler { [weak self] publication in
            self?.publish(publication)
        }
        let thread = Thread { [self] in run() }
        thread.name = "remvvm-viewmodels"
        thread.start()
    }

    /// Ends every stream and stops the thread.
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

    /// Opens a stream for `subjects` (each registered), starting as `start` says.
    func subscribe(_ subjects: [ViewModelSubject], start: ViewModelSubscription.Start) -> EventStream {
        let stream = EventStream(maxPendingBytes: backlogBytes)
        let id = ObjectIdentifier(stream)
        let logger = logger
        let metrics = metrics
        stream.onTermination { [weak self] reason in
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
        let wake = inbox.withLock { inbox -> Bool in
            guard !inbox.stopped else { return false }
            guard inbox.listening else {
                inbox.aside = publication
                return false
            }
            if inbox.pendingPublications >= limit {
                inbox.items.removeAll { if case .publication = $0 { true } else { false } }
                inbox.pendingPublications = 0
                inbox.dropStreams = true
                inbox.aside = publication
                return true
            }
            inbox.items.append(.publication(publication))
            inbox.pendingPublications += 1
            return inbox.items.count == 1
        }
        if wake { inbox.notifyAll() }
    }

    @discardableResult
    private func post(_ item: Item) -> Bool {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopped else { return (false, false) }
            if case .subscribe = item {
                inbox.listening = true
            }
            inbox.items.append(item)
            return (true, inbox.items.count == 1)
        }
        if wake { inbox.notifyAll() }
        return accepted
    }

    private func run() {
        var items: [Item] = []
        while true {
            let (aside, drop, stopping) = inbox.withLock(waitingUntil: \.hasWork) { inbox in
                swap(&items, &inbox.items)
                inbox.pendingPublications = 0
                defer {
                    inbox.aside = nil
                    inbox.dropStreams = false
                }
                return (inbox.aside, inbox.dropStreams, inbox.stopped)
            }
            if drop {
                endEveryStream(warning: true)
            }
            if let aside {
                // Set aside while nobody listened: older than everything in `items`.
                advance(to: aside)
            }
            process(items)
            items.removeAll(keepingCapacity: true)
            publishCounts()
            if followers.isEmpty && waiting.isEmpty {
                inbox.withLock { inbox in
                    if inbox.items.isEmpty { inbox.listening = false }
                }
            }
            if stopping { break }
        }
        endEveryStream(warning: false)
        publishCounts()
        inbox.withLock { $0.finished = true }
        inbox.notifyAll()
    }

    private func process(_ items: [Item]) {
        for item in items {
            switch item {
            case .publication(let publication):
                advance(to: publication)
            case .subscribe(let subscription):
                if case .after(let version, _) = subscription.start, version > (latest?.version ?? 0) {
                    waiting.append(subscription)
                } else {
                    join(subscription)
                }
            case .unsubscribe(let id):
                leave(id)
            }
        }
        flush()
    }

    /// Takes `publication` as the newest state: every group makes its view model, and the
    /// followers of each that changed get its event.
    private func advance(to publication: StatePublication<State>) {
        guard publication.version > (latest?.version ?? 0) || latest == nil else { return }
        latest = StoreSnapshot(version: publication.version, state: publication.state)
        var changed: [ViewModelSubject: [UInt8]] = [:]
        var affected: Set<ObjectIdentifier> = []
        for (subject, group) in groups {
            do {
                guard let frame = try group.update(state: publication.state, version: publication.version) else { continue }
                changed[subject] = frame
                affected.formUnion(group.streams)
            } catch {
                fail(group, error)
            }
        }
        // Each stream gets the view models of one version in the order it named them (the
        // groups' dictionary has an order of its own), the id on the last one only.
        for id in affected {
            guard let subjects = followers[id]?.subjects else { continue }
            followers[id]?.pending += Self.framesOfOneVersion(subjects.compactMap { changed[$0] })
            dirty.insert(id)
        }
        if !waiting.isEmpty {
            let ready = waiting.filter { subscription in
                if case .after(let version, _) = subscription.start { return version <= publication.version }
                return true
            }
            waiting.removeAll { subscription in ready.contains { $0.stream === subscription.stream } }
            for subscription in ready {
                flush()  // what the others were owed up to here goes first
                join(subscription)
            }
        }
    }

    /// Adds a stream to its groups (made when new) and sends its first events. Groups made for it
    /// are kept only once its first bytes are sent: a client gone before then (or a view model that
    /// cannot be encoded) leaves no group behind, which would be made again at every version with
    /// nobody following it.
    private func join(_ subscription: ViewModelSubscription) {
        guard let latest, !subscription.stream.isClosed else { return }
        var frames: [[UInt8]] = []
        var made: [ViewModelSubject: ViewModelGroup<State>] = [:]
        do {
            for subject in subscription.subjects {
                let group: ViewModelGroup<State>
                if let existing = groups[subject] ?? made[subject] {
                    group = existing
                } else {
                    group = try makeGroup(for: subject, at: latest)
                    made[subject] = group
                }
                let send: Bool
                switch subscription.start {
                case .current, .reset:
                    send = true
                case .after(_, let baselines):
                    send = try group.differs(from: baselines[subject] ?? .unknown)
                }
                if send {
                    frames.append(try group.currentFrame())
                }
            }
        } catch {
            logger.error("view model cannot be encoded for a new stream: \(error)")
            subscription.stream.close()
            return
        }
        frames = Self.framesOfOneVersion(frames)
        if case .reset = subscription.start, let first = frames.first {
            frames[0] = ViewModelFrame.markedAsReset(first)
        }
        let id = ObjectIdentifier(subscription.stream)
        var follower = Follower(stream: subscription.stream, subjects: subscription.subjects, awaitsFirstEvent: true)
        let sent: Bool
        if frames.isEmpty {
            // Nothing changed since the client's version: a comment alone, so that the response
            // head goes out now (libmicrohttpd sends it with the first body bytes); `retry:` comes
            // with the first event.
            sent = subscription.stream.send(Self.resumedComment)
        } else {
            sent = subscription.stream.send(contentsOf: [retryField] + frames)
            follower.awaitsFirstEvent = false
        }
        guard sent else { return }
        groups.merge(made) { kept, _ in kept }
        followers[id] = follower
        for subject in Set(subscription.subjects) {
            groups[subject]?.streams.insert(id)
        }
    }

    /// The events one version sends on one connection: `id:` on the last one only
    /// (``ViewModelFrame``), so that an id names a version the client has every event of.
    private static func framesOfOneVersion(_ frames: [[UInt8]]) -> [[UInt8]] {
        guard frames.count > 1 else { return frames }
        return frames.dropLast().map(ViewModelFrame.withoutID) + [frames[frames.count - 1]]
    }

    /// A new group of `subject`, made from `snapshot` (not kept: see ``join(_:)``).
    private func makeGroup(for subject: ViewModelSubject, at snapshot: StoreSnapshot<State>) throws -> ViewModelGroup<State> {
        guard let make = registry.maker(named: subject.name) else {
            throw ViewModelStreamError.unknownName(subject.name)
        }
        return ViewModelGroup(subject: subject, make: make, snapshot: snapshot, versionTags: versionTags, work: work)
    }

    private func leave(_ id: ObjectIdentifier) {
        waiting.removeAll { ObjectIdentifier($0.stream) == id }
        guard let follower = followers.removeValue(forKey: id) else { return }
        dirty.remove(id)
        for subject in Set(follower.subjects) {
            guard let group = groups[subject] else { continue }
            group.streams.remove(id)
            if group.streams.isEmpty {
                retire(group)
            }
        }
    }

    /// Forgets a group nobody follows.
    private func retire(_ group: ViewModelGroup<State>) {
        groups[group.subject] = nil
    }

    /// Sends every follower what was gathered for it, as one write.
    private func flush() {
        guard !dirty.isEmpty else { return }
        for id in dirty {
            guard var follower = followers[id], !follower.pending.isEmpty else { continue }
            var parts = follower.pending
            if follower.awaitsFirstEvent {
                parts.insert(retryField, at: 0)
                follower.awaitsFirstEvent = false
            }
            follower.pending.removeAll()
            followers[id] = follower
            // A refused send ends the stream; its departure arrives through the inbox.
            follower.stream.send(contentsOf: parts)
        }
        dirty.removeAll(keepingCapacity: true)
    }

    /// A view model that cannot be encoded ends the streams that follow it (logged): they cannot
    /// be served correctly.
    private func fail(_ group: ViewModelGroup<State>, _ error: any Error) {
        logger.error("view model \(group.subject.name) cannot be encoded: \(error); ending its \(group.streams.count) streams")
        for id in group.streams {
            followers[id]?.stream.close()
        }
    }

    private func endEveryStream(warning: Bool) {
        if warning, !followers.isEmpty {
            logger.warning(
                "view-model streams fell more than \(maxPendingPublications) versions behind the store; ending \(followers.count) streams so they resume"
            )
        }
        flush()
        for follower in followers.values {
            follower.stream.close()
        }
        for subscription in waiting {
            subscription.stream.close()
        }
        followers.removeAll()
        waiting.removeAll()
        dirty.removeAll()
        groups.removeAll()
    }

    private func publishCounts() {
        let count = followers.count + waiting.count
        if streamCount.exchange(count, ordering: .relaxed) != count {
            streamChanges.changed()
        }
    }

    private static var resumedComment: [UInt8] { Array(": resumed\n".utf8) }
}

/// Why a view-model stream cannot be opened.
enum ViewModelStreamError: Error, CustomStringConvertible {
    case unknownName(String)

    var description: String {
        switch self {
        case .unknownName(let name): "no view model is registered as \"\(name)\""
        }
    }
}
