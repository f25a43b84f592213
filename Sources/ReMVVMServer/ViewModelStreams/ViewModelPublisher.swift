import Logging
import MicroHTTP
import ReMVVM

/// The work of a ``ViewModelHub`` on its lane: takes the inbox in order, makes each followed view
/// model once per version, and sends each stream what changed. Its state is the lane's
/// (``SerialLane``): touched by one job at a time, never by another thread.
final class ViewModelPublisher<State: StoreState> {
    /// A stream on the lane: what it follows and what waits to be sent to it.
    private struct Follower {
        let stream: EventStream
        let subjects: [ViewModelSubject]
        /// No event sent yet: the next send starts with `retry:`.
        var awaitsFirstEvent: Bool
        var pending: [[UInt8]] = []
    }

    /// Unowned: every job of the lane holds the hub (it submitted it), and the hub holds the lane.
    private unowned let hub: ViewModelHub<State>
    private var latest: StoreSnapshot<State>?
    private var groups: [ViewModelSubject: ViewModelGroup<State>] = [:]
    private var followers: [ObjectIdentifier: Follower] = [:]
    /// Streams resuming after a version the hub has not reached yet: they join when it has.
    private var waiting: [ViewModelSubscription] = []
    /// Followers with events gathered and not sent.
    private var dirty: Set<ObjectIdentifier> = []
    /// The inbox's entries, taken in turns with the inbox's own array.
    private var entries: [PublicationInbox.Entry] = []

    private var logger: Logger { hub.logger }
    private var retryField: [UInt8] { hub.retryField }

    init(hub: ViewModelHub<State>, latest: StoreSnapshot<State>) {
        self.hub = hub
        self.latest = latest
    }

    /// Takes what the inbox holds and does it; after the hub's stop, ends every stream and
    /// returns true (the lane then forgets this publisher).
    func drain() -> Bool {
        let batch = hub.inbox.withLock { $0.take(into: &entries) }
        if batch.dropListeners {
            endEveryStream(warning: true)
        }
        if let setAside = batch.setAside {
            // Set aside while nobody listened, or the source's snapshot a first stream caught up
            // to: no newer entry is older (an older one is passed over).
            advance(to: PublicationInbox.snapshot(setAside, as: State.self))
        }
        process(entries)
        entries.removeAll(keepingCapacity: true)
        publishCounts()
        if followers.isEmpty && waiting.isEmpty {
            hub.inbox.withLock { $0.stopListeningIfIdle(unsetting: hub.demand) }
        }
        guard batch.stopping else { return false }
        endEveryStream(warning: false)
        publishCounts()
        hub.inbox.withLock { $0.finished = true }
        hub.inbox.notifyAll()
        return true
    }

    private func process(_ entries: [PublicationInbox.Entry]) {
        for entry in entries {
            switch entry {
            case .publication(let publication):
                advance(to: PublicationInbox.publication(publication, as: State.self))
            case .item(let item):
                switch PublicationInbox.item(item, as: ViewModelHub<State>.Item.self) {
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
        }
        flush()
    }

    /// Takes `publication` as the newest state: every group makes its view model, and the
    /// followers of each that changed get its event.
    private func advance(to publication: StoreSnapshot<State>) {
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
        guard let make = hub.registry.maker(named: subject.name) else {
            throw ViewModelStreamError.unknownName(subject.name)
        }
        return ViewModelGroup(subject: subject, make: make, snapshot: snapshot, versionTags: hub.versionTags, work: hub.work)
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
                "view-model streams fell more than \(hub.maxPendingPublications) versions behind the store; ending \(followers.count) streams so they resume"
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
        hub.updateStreamCount(followers.count + waiting.count)
    }

    private static var resumedComment: [UInt8] { Array(": resumed\n".utf8) }
}
