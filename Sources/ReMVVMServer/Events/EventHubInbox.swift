import DequeModule
import ReMVVM

/// What an ``EventHub``'s store thread, HTTP workers and lane share, under the hub's lock.
///
/// Not generic, like the ``PublicationInbox`` it holds: the store's thread appends to it at every
/// reduce from code not specialized for the domain's state, where a generic inbox's runtime types
/// (its own, its history's deque, their buffers) were looked up at every publication. The
/// publications, the journal replay and the start snapshot are held as `AnyObject`; the hub
/// types them back (``EventHub/publications(in:_:)``, ``EventHub/journal(in:)``,
/// ``EventHub/start(in:)``).
struct EventHubInbox {
    var publications = PublicationInbox()
    /// The newest publications, every version, for streams that resume (`Last-Event-ID`);
    /// bounded by ``EventHub/historyLimit(joining:)``.
    var history: Deque<ErasedPublication> = []
    /// The ring has kept a version: it counts in the ``SharedBudget`` it shares.
    var keepsVersions = false
    /// The newest version published (or the start version).
    var newestVersion: UInt64 = 0
    /// Rebuilds versions older than `history` from the journal (a `JournalReplay` of the hub's
    /// state); nil without one.
    var journal: AnyObject?
    /// Without a journal, the state the hub started at (a `StoreSnapshot` of the hub's state): the
    /// ring holds publications only, so the state before the first one would be unknown to
    /// view-model streams resuming after it.
    var start: AnyObject?
    /// With a history behind the hub (a journal, a replica's log): the source's newest state (its
    /// `StoreSnapshot`), for catching up after the versions the hub skipped while nobody listened
    /// (``EventHub/withInboxCaughtUp(_:)``). Nil: the hub takes every publication.
    var newestOfSource: (@Sendable () -> AnyObject)?
    /// With a history behind the hub, after its last stream left: until when it keeps taking
    /// publications (``EventHub/idleGrace``); nil otherwise.
    var idleGraceEnds: ContinuousClock.Instant?
    /// ``EventHub/start(source:)`` has begun (it runs once).
    var claimed = false
    /// The lane has its publisher: entries wake it.
    var started = false
}

extension EventHubInbox {
    /// Drops the oldest kept versions beyond `limit` (all of them at 0).
    mutating func trimHistory(to limit: Int) {
        if history.count > limit {
            history.removeFirst(history.count - limit)
        }
    }
}

extension EventHub {
    /// The publications of `inbox`'s history at `positions`, typed.
    func publications(in inbox: EventHubInbox, _ positions: Range<Int>) -> [StatePublication<State>] {
        positions.map { inbox.history[$0].typed(as: State.self) }
    }

    /// `inbox`'s journal replay, typed.
    func journal(in inbox: EventHubInbox) -> JournalReplay<State>? {
        // Cannot be another class: only ``start(source:)`` sets it, with this hub's replay.
        inbox.journal.map { unsafeDowncast($0, to: JournalReplay<State>.self) }
    }

    /// `inbox`'s start snapshot, typed.
    func start(in inbox: EventHubInbox) -> StoreSnapshot<State>? {
        // Cannot be another class: only ``start(source:)`` sets it, with this hub's snapshot.
        inbox.start.map { unsafeDowncast($0, to: StoreSnapshot<State>.self) }
    }
}
