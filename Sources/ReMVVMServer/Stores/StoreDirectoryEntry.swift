import Journal

/// What a ``StoreDirectory`` knows of one id it has seen: whether its store is loaded, being
/// loaded, put away or deleted, when it was last used, how many requests hold it, and its place
/// in the list of loaded stores by last use.
///
/// Unchecked `Sendable`: every `var` is read and written only under the directory's lock; a
/// lease carries the entry to a request's thread only to give it back under that lock.
///
/// Not generic, like the ``StoreUseList`` and ``StoreDirectoryState`` it lives in: the directory
/// runs unspecialized for the domain's store type, and generic entries had it look up their
/// runtime types (the entry's, the list's, the step's) and hash ids through generic dictionary
/// code on every request — about 1,200 instructions of a `/stores/{id}/…` request. The store is
/// held as `AnyObject`; the directory types it back (``store(as:)``).
final class StoreDirectoryEntry: @unchecked Sendable {
    /// Where the entry is in its life.
    enum Phase {
        /// One request loads the store; the others wait.
        case loading
        /// Ready to serve: the directory's `Store`.
        case loaded(AnyObject)
        /// Its snapshot is being written before it is put away; requests wait, then load it again.
        case unloading
        /// Being deleted; requests wait, then find it absent.
        case deleting
        /// Out of the directory: waiters start again, or fail with the load's error. Indirect:
        /// the phase stays one word, in the entry's first cache line.
        indirect case gone(StoreDirectoryError?)
    }

    // What a request reads and writes, all in the object's first cache line with its reference
    // count: over many stores an entry (and its neighbours in the list, whose links a request
    // rewrites) is cold, and every line it touches is a miss.
    /// Neighbours in the list of loaded stores: toward the most recently used (`newer`) and the
    /// least (`older`). Set while the entry is in the list only; the list unlinks it when it leaves.
    var newer: StoreDirectoryEntry?
    var older: StoreDirectoryEntry?
    var phase: Phase
    /// When a request last used it, in the directory's clock (milliseconds).
    var lastUsed: Int64
    /// Requests holding it now (leases not yet given back).
    var inUse = 0
    /// Never unloaded or deleted: the store `default`, which the root routes hold directly.
    let pinned: Bool
    let id: StoreID

    init(id: StoreID, phase: Phase, lastUsed: Int64, pinned: Bool = false) {
        self.id = id
        self.phase = phase
        self.lastUsed = lastUsed
        self.pinned = pinned
    }

    /// The store, while loaded.
    var loadedStore: AnyObject? {
        if case .loaded(let store) = phase { return store }
        return nil
    }

    /// The store, while loaded, typed as the directory's `Store`.
    func store<Store: AnyObject>(as _: Store.Type) -> Store? {
        // Cannot be another class: only the directory of `Store`s loads its entries.
        loadedStore.map { unsafeDowncast($0, to: Store.self) }
    }

    /// Whether requests must wait for another one to finish with the entry.
    var isBusy: Bool {
        switch phase {
        case .loading, .unloading, .deleting: true
        case .loaded, .gone: false
        }
    }
}

/// The loaded stores ordered by last use, most recent first: a doubly linked list through the
/// entries, so that a request moves its store to the front without allocating.
struct StoreUseList {
    private(set) var newest: StoreDirectoryEntry?
    private(set) var oldest: StoreDirectoryEntry?
    private(set) var count = 0

    /// Puts an entry that is not in the list at the front.
    mutating func pushNewest(_ entry: StoreDirectoryEntry) {
        entry.older = newest
        entry.newer = nil
        newest?.newer = entry
        newest = entry
        if oldest == nil { oldest = entry }
        count += 1
    }

    /// Moves an entry of the list to the front.
    mutating func touch(_ entry: StoreDirectoryEntry) {
        guard newest !== entry else { return }
        remove(entry)
        pushNewest(entry)
    }

    /// Takes an entry of the list out of it.
    mutating func remove(_ entry: StoreDirectoryEntry) {
        if let newer = entry.newer { newer.older = entry.older } else { newest = entry.older }
        if let older = entry.older { older.newer = entry.newer } else { oldest = entry.newer }
        entry.newer = nil
        entry.older = nil
        count -= 1
    }
}

/// What a ``StoreDirectory`` keeps under its lock (not generic: see ``StoreDirectoryEntry``).
struct StoreDirectoryState {
    var entries: [StoreID: StoreDirectoryEntry] = [:]
    /// The loaded stores but `default`, most recently used first.
    var loaded = StoreUseList()
    /// Requests waiting for another one's load, unload or delete now (for tests and tools).
    var waiting = 0
    /// The stores whose last load failed in a way a retry here does not mend (a replica's store
    /// whose records the log removed before this replica registered it), with why: `/healthz`
    /// names them until a load succeeds or the store is deleted.
    var unloadable: [StoreID: String] = [:]
}

/// What a request does next for a store id (``StoreDirectory``'s `nextStep(for:)`, under the lock).
enum StoreDirectoryStep {
    /// Serve the loaded store (the directory's `Store`) of the entry, counted as used.
    case ready(StoreDirectoryEntry, AnyObject)
    /// Wait for another request's load, unload or delete of the entry.
    case wait(StoreDirectoryEntry)
    /// Load the store into this new entry.
    case load(StoreDirectoryEntry)
}
