import ConcurrencyKit
import DequeModule
import Journal
import Logging
import ReMVVM

/// Holds each reduce back until the journal made it durable: queues the store's publications,
/// appends their records to the journal, and passes them on (to the event hub, to `GET /state`)
/// once a commit covers them (``release(through:)``). Nothing can see version N before N is durable.
/// The journal tells it of each commit (``JournalDurabilityListener``), and it asks the store's
/// ``SnapshotWriter`` (if any) for a snapshot when one falls due.
final class CommitGate<State: StoreState & Codable>: StatePublisher, JournalDurabilityListener {
    /// What the store's thread and the journal's share. Not generic (the publications and the
    /// committed snapshot as objects, the handlers as one closure over objects): it is touched at
    /// every reduce and every commit from code not specialized for the domain's state, where
    /// a queue and an array of handlers over `State` were runtime type lookups at each touch.
    private struct Gate {
        var awaiting: Deque<ErasedPublication> = []
        /// A `StoreSnapshot` of the state (a `StatePublication` once a commit released one).
        var committed: AnyObject
        /// Every handler added, in order, with the demand that switches it (nil: always called).
        var handlers: [Handler] = []
        /// The handlers called now — those without a demand or whose demand is set — in order,
        /// as one closure (none: does nothing, and touches nothing: over many stores a release
        /// to a store nobody follows then reads no handler's or hub's memory).
        var publish: @Sendable (AnyObject) -> Void = { _ in }
        /// Set by ``CommitGate/close()``: nothing is passed on after.
        var closed = false
        /// The first version a snapshot may be due at (the snapshot writer's, as of its last
        /// call): below it the writer is not asked — over many stores, one object fewer to touch
        /// per store of a commit.
        var nextSnapshotDue: UInt64

        /// Composes ``publish`` from the handlers wanted now.
        mutating func recompose() {
            var composed: (@Sendable (AnyObject) -> Void)?
            for handler in handlers where handler.demand?.isWanted ?? true {
                if let earlier = composed {
                    let call = handler.call
                    composed = { publication in
                        earlier(publication)
                        call(publication)
                    }
                } else {
                    composed = handler.call
                }
            }
            publish = composed ?? { _ in }
        }
    }

    /// A publication handler, typed back by its own closure.
    private struct Handler {
        let call: @Sendable (AnyObject) -> Void
        let demand: PublicationDemand?
    }

    private let gate: Lock<Gate>
    /// The journal's versions, rebuilt for event streams that resume beyond the event hub's ring.
    let history: (any VersionHistory<State>)?
    /// Writes the store's snapshots as versions become durable (nil: none).
    private let snapshots: SnapshotWriter<State>?

    /// Starts at the store's current (restored, hence durable) state.
    init(
        store: Store<State>,
        journal: GroupCommitJournal,
        codec: ActionJournalCodec,
        history: (any VersionHistory<State>)?,
        snapshots: SnapshotWriter<State>? = nil,
        logger: Logger
    ) {
        gate = Lock(Gate(committed: store.snapshot, nextSnapshotDue: snapshots?.nextDueVersion ?? .max))
        self.history = history
        self.snapshots = snapshots
        // The captures read at every reduce first, in the closure's first cache line.
        store.addPublicationHandler { [gate, journal, codec, logger] publication in
            guard let record = codec.record(for: publication, time: ActionJournalCodec.now()) else {
                // The store's reduce check refuses such actions; one that got through anyway
                // cannot be journaled, and the journal refuses the gap it leaves.
                logger.critical("version \(publication.version) was reduced but cannot be journaled: \(type(of: publication.action)) has no wire name")
                return
            }
            gate.withLock { $0.awaiting.append(ErasedPublication(publication)) }
            journal.append(record)
        }
    }

    /// Passes on every publication through `version`, now durable, in version order: the journal's
    /// durable listener calls it after each commit that held this store's records (``DurableRuntime``).
    ///
    /// Over many stores each commit holds about one record of a store: the common case takes one
    /// publication, without an array to carry it.
    func release(through version: UInt64) {
        var first: AnyObject?
        var more: [AnyObject] = []
        var snapshotDue = false
        let publish = gate.withLock { gate -> @Sendable (AnyObject) -> Void in
            while let head = gate.awaiting.first, head.version <= version {
                let object = gate.awaiting.removeFirst().object
                if first == nil { first = object } else { more.append(object) }
            }
            if let last = more.last ?? first {
                gate.committed = last
            }
            snapshotDue = version >= gate.nextSnapshotDue
            return gate.publish
        }
        if let first {
            publish(first)
            for publication in more {
                publish(publication)
            }
        }
        // After the publications: the snapshot is of what the gate released.
        if snapshotDue, let snapshots {
            snapshots.writeIfDue(at: version) { [self] in snapshot }
            let next = snapshots.nextDueVersion
            gate.withLock { $0.nextSnapshotDue = next }
        }
    }

    /// The journal's commit covered `version`: ``release(through:)``.
    func journalDidCommit(through version: UInt64) {
        release(through: version)
    }

    var snapshot: StoreSnapshot<State> {
        let committed = gate.withLock { $0.committed }
        // Cannot be another class: set from the store's snapshot and its publications (a
        // `StatePublication` is a `StoreSnapshot`).
        return unsafeDowncast(committed, to: StoreSnapshot<State>.self)
    }

    /// Drops the publication handlers once the journal has stopped: nothing is released after,
    /// and a handler (a hub's) may hold what holds this gate, which would otherwise never be freed.
    func close() {
        gate.withLock { gate in
            gate.handlers = []
            gate.publish = { _ in }
            gate.closed = true
        }
    }

    @discardableResult
    func addPublicationHandler(_ handler: @escaping @Sendable (StatePublication<State>) -> Void) -> StoreSnapshot<State> {
        add(handler, demand: nil)
    }

    /// Leaves `handler` out of the releases while `demand` is unset: recomposed, under the gate's
    /// lock, at every change. A release copies the handlers under the same lock as it sets the
    /// committed state, so a hub that sets its demand and then reads ``snapshot`` either gets
    /// that release's versions or reads a snapshot that holds them.
    @discardableResult
    func addPublicationHandler(
        _ handler: @escaping @Sendable (StatePublication<State>) -> Void, demand: PublicationDemand
    ) -> StoreSnapshot<State> {
        demand.whenChanged { [weak self] in
            self?.gate.withLock { $0.recompose() }
        }
        return add(handler, demand: demand)
    }

    private func add(_ handler: @escaping @Sendable (StatePublication<State>) -> Void, demand: PublicationDemand?) -> StoreSnapshot<State> {
        let typed: @Sendable (AnyObject) -> Void = { handler(PublicationInbox.publication($0, as: State.self)) }
        let committed = gate.withLock { gate -> AnyObject in
            if !gate.closed {
                gate.handlers.append(Handler(call: typed, demand: demand))
                gate.recompose()
            }
            return gate.committed
        }
        // Cannot be another class: see ``snapshot``.
        return unsafeDowncast(committed, to: StoreSnapshot<State>.self)
    }
}
