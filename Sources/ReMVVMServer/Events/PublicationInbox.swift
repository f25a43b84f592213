import ReMVVM

/// What the store's thread and the HTTP workers hand a publishing hub (``EventHub``,
/// ``ViewModelHub``), kept under the hub's lock and taken whole by the hub's lane:
/// publications, and the hub's own items (new streams, departures), in the order they came.
///
/// - While nobody listens, a publication only replaces the newest one kept aside: no wake-up,
///   no work. The switch between "aside" and "queued" happens under the lock, so every
///   publication set aside is older than every one queued.
/// - It is bounded: when `limit` publications wait already, they are dropped (counted as set
///   aside), the newest is set aside, and the lane is told to drop its listeners, who reconnect
///   and start again from the newest state. Memory never grows without limit.
/// - The lane is woken (``needsWake``) once per batch: by the first entry after a ``take()``.
///
/// Not generic: the store's thread publishes into it at every reduce, from code that is not
/// specialized for the domain's state, and a `PublicationInbox<State, Item>` made that code look
/// up the inbox's runtime types (and its entries', its batch's) at every publication — about
/// 300 instructions each. Publications are held as `AnyObject` and items as `Any`; the lane
/// types them back with ``publication(_:as:)`` and ``item(_:as:)``.
struct PublicationInbox {
    /// A publication, or one of the hub's own items.
    enum Entry {
        /// A `StatePublication` of the hub's state.
        case publication(AnyObject)
        /// The hub's own item (its `Item` type).
        case item(Any)
    }

    /// What the lane takes at once.
    struct Batch {
        /// Set aside while nobody listened: older than every entry. A `StatePublication` (or, in a
        /// view-model hub, the source's `StoreSnapshot`).
        var setAside: AnyObject?
        /// The lane fell too far behind: end every listener first.
        var dropListeners: Bool
        /// The hub stops: after this batch, end every stream.
        var stopping: Bool
    }

    /// `object`, a publication a hub of `State` put into its inbox, typed again.
    static func publication<State: StoreState>(_ object: AnyObject, as _: State.Type) -> StatePublication<State> {
        // Cannot be another class: a hub's inbox only receives its own store's publications
        // (checked in debug builds).
        unsafeDowncast(object, to: StatePublication<State>.self)
    }

    /// `object`, a publication or a snapshot a hub of `State` set aside, typed again as the
    /// snapshot both are.
    static func snapshot<State: StoreState>(_ object: AnyObject, as _: State.Type) -> StoreSnapshot<State> {
        // Cannot be another class: see ``publication(_:as:)``; a `StatePublication` is a
        // `StoreSnapshot`.
        unsafeDowncast(object, to: StoreSnapshot<State>.self)
    }

    /// `value`, an item a hub posted to its inbox, typed again.
    static func item<Item>(_ value: Any, as _: Item.Type) -> Item {
        // Cannot fail: a hub posts only its own `Item`s to its own inbox.
        value as! Item
    }

    private var entries: [Entry] = []
    private var pendingPublications = 0
    private var aside: AnyObject?
    private var dropRequested = false
    /// A drain is queued on the lane and has not taken the inbox yet.
    private var wakePending = false
    /// Whether a listener is connected or on its way: publications are queued, not set aside.
    private(set) var listening = false
    /// How many publications were set aside or dropped, since the hub started.
    private(set) var versionsSetAside = 0
    /// The hub has been asked to stop: nothing is accepted any more.
    private(set) var stopped = false
    /// The hub's lane has ended every stream after the stop.
    var finished = false

    /// Whether `publication` needs the lane: queued (a listener waits for it) or set aside (none).
    /// Call ``needsWake()`` after a true answer.
    mutating func publish(_ publication: AnyObject, limit: Int) -> Bool {
        guard !stopped else { return false }
        guard listening else {
            aside = publication
            versionsSetAside += 1
            return false
        }
        return queue(publication, limit: limit)
    }

    /// Queues `publication` for the listeners.
    private mutating func queue(_ publication: AnyObject, limit: Int) -> Bool {
        if pendingPublications >= max(1, limit) {
            entries.removeAll { if case .publication = $0 { true } else { false } }
            versionsSetAside += pendingPublications + 1
            pendingPublications = 0
            dropRequested = true
            aside = publication
            return true
        }
        entries.append(.publication(publication))
        pendingPublications += 1
        return true
    }

    /// The publication set aside while nobody listened, if any (a hub of `State`'s
    /// `StoreSnapshot`).
    var setAside: AnyObject? { aside }

    /// Sets `snapshot` aside in place of what was: a hub that skipped publications while nobody
    /// followed (``ViewModelHub``) puts its source's newest state here as its first listener comes,
    /// so that the lane starts from it. The caller keeps the newer of the two.
    mutating func replaceSetAside(with snapshot: AnyObject) {
        aside = snapshot
    }

    /// Counts `count` versions the hub skipped while nobody listened (they never reached the inbox)
    /// as set aside.
    mutating func countSkipped(_ count: Int) {
        versionsSetAside += count
    }

    /// Queues `item` (a new listener when `listens`); false, nothing queued, when stopped.
    mutating func post(_ item: Any, listens: Bool) -> Bool {
        guard !stopped else { return false }
        if listens { listening = true }
        entries.append(.item(item))
        return true
    }

    /// True when the lane has no drain queued: the caller submits one (outside the lock).
    mutating func needsWake() -> Bool {
        defer { wakePending = true }
        return !wakePending
    }

    /// Refuses everything from now on; true when the lane must be woken to end the streams.
    mutating func stop() -> Bool {
        guard !stopped else { return false }
        stopped = true
        return needsWake()
    }

    /// Takes every entry into `taken` (empty: its storage is kept for the next entries, so that
    /// the two arrays take turns without allocating), and what goes with them (for the lane).
    mutating func take(into taken: inout [Entry]) -> Batch {
        swap(&taken, &entries)
        defer {
            pendingPublications = 0
            aside = nil
            dropRequested = false
            wakePending = false
        }
        return Batch(setAside: aside, dropListeners: dropRequested, stopping: stopped)
    }

    /// With no listener left on the lane, and none queued, publications go aside again, and
    /// `demand` (the hub's, when its source may skip it while nobody listens) is unset.
    mutating func stopListeningIfIdle(unsetting demand: PublicationDemand? = nil) {
        if entries.isEmpty {
            listening = false
        }
        if !listening {
            demand?.set(false)
        }
    }
}
