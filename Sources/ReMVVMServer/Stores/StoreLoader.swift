public import Journal

/// How a ``StoreDirectory`` makes a store ready to serve and puts it away again: the part of
/// loading and unloading that knows the backend (memory, journal, replica).
///
/// The directory calls these off its lock, never twice at once for one id, and never
/// `unload` or ``end(_:)`` while a request holds the store.
public protocol StoreLoader: Sendable {
    /// One loaded store (for the service: a served store with its backend and hubs).
    associatedtype Store: AnyObject, Sendable

    /// Whether loaded stores may be unloaded at all. False for a server in memory: an unloaded
    /// store would have nothing to be loaded again from, so its stores stay until deleted, and
    /// `maxLoadedStores` and `storeIdleSeconds` do not apply.
    var unloads: Bool { get }

    /// Makes the store of `description` ready to serve (for a journal: its snapshot and the
    /// records after it replayed) and starts it. Its event ids and tags carry
    /// the description's `incarnation`, so that none of an earlier store of the same id matches.
    /// An error fails this request and every request waiting for the same load with `503`; the
    /// next request tries again.
    func load(_ description: StoreDescription) throws -> Store

    /// Puts an idle store away: writes its snapshot (so the next load replays little), then
    /// stops it. Called only when ``unloads`` and the store has no open streams.
    func unload(_ store: Store)

    /// Puts several idle stores away at once (as `unload` of one store does each), doing together
    /// what can be done for all of them (a replica: writing their last snapshots in one local
    /// transaction and registering them in the shared log in one); the directory gives at most
    /// 500 at a time.
    func unload(_ stores: [Store])

    /// Ends a deleted store: its event streams end, it stops; nothing is written.
    func end(_ store: Store)

    /// Removes what the loader keeps of the store `id` outside the catalog (a replica's local
    /// snapshots), once the catalog no longer holds it; called whether the store was loaded or
    /// not, never while it is; a failure is the loader's to report (the default: nothing).
    func deleted(_ id: StoreID)

    /// Whether event or view-model streams of the store are open (such a store stays loaded).
    func hasOpenStreams(_ store: Store) -> Bool
}

extension StoreLoader {
    /// Nothing kept outside the catalog.
    public func deleted(_ id: StoreID) {}

    /// One by one.
    public func unload(_ stores: [Store]) {
        for store in stores { unload(store) }
    }
}
