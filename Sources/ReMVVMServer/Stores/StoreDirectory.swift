import ConcurrencyKit
public import Journal

/// The stores a server serves: resolves a store id to its loaded store, loading it on first use
/// and unloading it when idle or when too many are loaded (`docs/http-api.md`, "Stores").
///
/// - A hit (a loaded store) takes the lock once to count the request and move the store to the
///   front of the use list, and once to give it back: no allocation.
/// - A miss inserts a loading entry and loads off the lock; requests for the same id meanwhile
///   wait for that one load. A failed load answers all of them `503` and leaves nothing behind:
///   the next request tries again.
/// - Unloading (least recently used past ``StoreLimits/maxLoaded``, or idle past
///   ``StoreLimits/idleTime``) skips stores that requests hold or that have open streams, and
///   runs off the lock; requests for a store being unloaded wait, then load it again.
/// - The store `default` is pinned: always loaded, never unloaded or deleted.
///
/// Time comes from `now` (milliseconds), so that tests pass idle time without sleeping.
public final class StoreDirectory<Loader: StoreLoader>: Sendable {
    /// A loaded store.
    public typealias Store = Loader.Store
    typealias Entry = StoreDirectoryEntry
    typealias State = StoreDirectoryState

    /// Which stores exist.
    public let catalog: any StoreCatalog
    let loader: Loader
    /// The limits it keeps.
    public let limits: StoreLimits
    let metrics: StoreMetrics?
    let now: @Sendable () -> Int64
    let state: Lock<State>
    /// How long a request waits for another request's load, unload or delete of the same store.
    let waitLimit: Duration

    /// - Parameter defaultStore: the store `default`, loaded already (the root routes hold it).
    /// - Parameter catalog: which stores exist; it must hold `default`.
    /// - Parameter loader: loads, unloads and ends stores.
    /// - Parameter limits: `maxStores`, `maxLoadedStores`, `storeIdleSeconds`, `autoCreateStores`.
    /// - Parameter metrics: counts loads and unloads for `GET /metrics`; nil: not measured.
    /// - Parameter waitLimit: how long a request waits for another one's load of the same
    ///   store before it gets `503`.
    /// - Parameter now: the clock of idle times, in milliseconds (for creation times: since 1970).
    public init(
        defaultStore: Store,
        catalog: any StoreCatalog,
        loader: Loader,
        limits: StoreLimits,
        metrics: StoreMetrics? = nil,
        waitLimit: Duration = .seconds(30),
        now: @escaping @Sendable () -> Int64 = MemoryStoreCatalog.now
    ) {
        self.catalog = catalog
        self.loader = loader
        self.limits = limits
        self.metrics = metrics
        self.waitLimit = waitLimit
        self.now = now
        var initial = State()
        initial.entries[.default] = Entry(id: .default, phase: .loaded(defaultStore), lastUsed: now(), pinned: true)
        state = Lock(initial)
    }

    /// The store `id` for one request, loaded if it was not; give it back with ``release(_:)``.
    ///
    /// - Parameter id: the store.
    /// - Parameter creating: whether the request writes (a POST of actions or of a command): with
    ///   ``StoreLimits/autoCreate`` it then creates a missing store; a read never does.
    /// - Throws: ``StoreDirectoryError/notFound(_:)``, ``StoreDirectoryError/limitReached(limit:)``
    ///   (creating), ``StoreDirectoryError/unavailable(_:reason:)`` (the load failed, or waiting
    ///   for another request's load took longer than the wait limit).
    public func lease(_ id: StoreID, creating: Bool) throws(StoreDirectoryError) -> StoreLease<Store> {
        while true {
            switch nextStep(for: id) {
            case .ready(let entry, let store):
                // Cannot be another class: only this directory's loads fill its entries.
                return StoreLease(store: unsafeDowncast(store, to: Store.self), entry: entry)
            case .wait(let entry):
                try waitUntilSettled(entry)
            case .load(let entry):
                return try load(entry, creating: creating)
            }
        }
    }

    /// Gives back a store ``lease(_:creating:)`` gave; call once per lease.
    public func release(_ lease: StoreLease<Store>) {
        let wakeWaiters = state.withLock { _ in
            lease.entry.inUse -= 1
            return lease.entry.inUse == 0 && lease.entry.loadedStore == nil
        }
        if wakeWaiters { state.notifyAll() }
    }

    /// Runs `body` with the store `id` (``lease(_:creating:)``), giving it back afterwards.
    public func withStore<Result>(
        _ id: StoreID, creating: Bool, _ body: (Store) throws(StoreDirectoryError) -> Result
    ) throws(StoreDirectoryError) -> Result {
        let lease = try lease(id, creating: creating)
        defer { release(lease) }
        return try body(lease.store)
    }

    /// How many stores are loaded now, `default` included.
    public var loadedCount: Int {
        state.withLock { $0.loaded.count + 1 }
    }

    /// Waits until `count` requests wait for another request's load, unload or delete; false
    /// after `timeout`. Blocks the calling thread: for tests and tools.
    public func waitForWaitingRequests(_ count: Int, timeout: Duration) -> Bool {
        state.wait(timeout: timeout) { $0.waiting >= count }
    }

    /// The stores loaded now, `default` first, then from the most recently used.
    public var loadedStores: [Store] {
        state.withLock { state in
            var stores: [Store] = []
            stores.reserveCapacity(state.loaded.count + 1)
            if let root = state.entries[.default]?.store(as: Store.self) { stores.append(root) }
            var entry = state.loaded.newest
            while let current = entry {
                if let store = current.store(as: Store.self) { stores.append(store) }
                entry = current.older
            }
            return stores
        }
    }

    /// The stores whose last load failed in a way a retry here does not mend, with why, by id.
    /// A store the catalog no longer holds (deleted through another replica, which this one,
    /// never having loaded it, is not told of) is forgotten here.
    public var unloadableStores: [StoreID: String] {
        var unloadable = state.withLock { $0.unloadable }
        for id in unloadable.keys where (try? catalog.describe(id)) == .some(nil) {
            unloadable[id] = nil
            state.withLock { state in
                if state.entries[id] == nil { state.unloadable[id] = nil }
            }
        }
        return unloadable
    }

    /// Whether the store `id` is loaded now.
    public func isLoaded(_ id: StoreID) -> Bool {
        state.withLock { $0.entries[id]?.loadedStore != nil }
    }

    /// Under the lock: the loaded store (counted as used), the entry to wait for, or a new
    /// loading entry this request must fill.
    private func nextStep(for id: StoreID) -> StoreDirectoryStep {
        state.withLock { state in
            let time = now()
            if let entry = state.entries[id] {
                switch entry.phase {
                case .loaded(let store):
                    entry.inUse += 1
                    entry.lastUsed = time
                    if !entry.pinned { state.loaded.touch(entry) }
                    return .ready(entry, store)
                case .loading, .unloading, .deleting:
                    return .wait(entry)
                case .gone:
                    break  // not kept in the map; replaced below
                }
            }
            let entry = Entry(id: id, phase: .loading, lastUsed: time)
            state.entries[id] = entry
            return .load(entry)
        }
    }

    /// Waits until another request's load, unload or delete of `entry` ends; throws the load's
    /// failure, which every request waiting for it shares.
    private func waitUntilSettled(_ entry: Entry) throws(StoreDirectoryError) {
        state.withLock { $0.waiting += 1 }
        state.notifyAll()
        let failure: StoreDirectoryError? = state.withLock(waitingUntil: { _ in !entry.isBusy }, timeout: waitLimit) { state, settled in
            state.waiting -= 1
            guard settled else {
                return .unavailable(entry.id, reason: "another request has been loading it for longer than \(waitLimit)")
            }
            if case .gone(let failure) = entry.phase { return failure }
            return nil
        }
        if let failure { throw failure }
    }

    /// Loads the store of `entry` (this request's), then unloads the least recently used stores
    /// past the limit.
    private func load(_ entry: Entry, creating: Bool) throws(StoreDirectoryError) -> StoreLease<Store> {
        let started = ContinuousClock.now
        let store: Store
        do throws(StoreDirectoryError) {
            let description = try describeOrCreate(entry.id, creating: creating)
            do {
                store = try loader.load(description)
            } catch {
                metrics?.loadFailed()
                throw failure(loading: description, error)
            }
        } catch {
            // Waiters share a failed load's 503; for anything else (absent, limit) each asks anew.
            var shared: StoreDirectoryError?
            switch error {
            case .unavailable, .unloadable: shared = error
            default: break
            }
            remove(entry, phase: .gone(shared))
            throw error
        }
        let victims = state.withLock { state in
            state.unloadable[entry.id] = nil
            entry.phase = .loaded(store)
            entry.inUse = 1
            entry.lastUsed = now()
            state.loaded.pushNewest(entry)
            return loader.unloads ? leastRecentlyUsed(&state, beyond: limits.maxLoaded) : []
        }
        state.notifyAll()
        metrics?.loaded(duration: ContinuousClock.now - started)
        unload(victims, reason: .overLimit)
        return StoreLease(store: store, entry: entry)
    }

    /// Why the load of `description` failed with `error`: the store is absent when the catalog
    /// no longer holds it (deleted meanwhile, on another replica: what the loader kept of it
    /// goes), else unavailable.
    private func failure(loading description: StoreDescription, _ error: any Error) -> StoreDirectoryError {
        guard (try? catalog.describe(description.id)) == .some(nil) else {
            if let error = error as? JournalError, error.code == .recordsRemoved {
                state.withLock { $0.unloadable[description.id] = error.message }
                return .unloadable(description.id, reason: error.message)
            }
            return .unavailable(description.id, reason: "its load failed: \(error)")
        }
        loader.deleted(description.id)
        return .notFound(description.id)
    }

    /// The description of store `id`, created first when `creating` and auto-creation allow.
    private func describeOrCreate(_ id: StoreID, creating: Bool) throws(StoreDirectoryError) -> StoreDescription {
        do {
            if let description = try catalog.describe(id) { return description }
            guard creating, limits.autoCreate else { throw StoreDirectoryError.notFound(id) }
            switch try catalog.create(id, limit: limits.maxStores, at: now()) {
            case .created(let description), .existed(let description):
                return description
            case .limitReached:
                throw StoreDirectoryError.limitReached(limit: limits.maxStores)
            }
        } catch let error as StoreDirectoryError {
            throw error
        } catch {
            throw .unavailable(id, reason: "the catalog of stores cannot be read: \(error)")
        }
    }

    /// Takes `entry` out of the directory in `phase` and wakes the requests waiting for it.
    func remove(_ entry: Entry, phase: Entry.Phase) {
        state.withLock { state in
            if case .gone(nil) = phase { state.unloadable[entry.id] = nil }
            entry.phase = phase
            if state.entries[entry.id] === entry { state.entries[entry.id] = nil }
        }
        state.notifyAll()
    }
}

/// A loaded store held by one request: give it back with ``StoreDirectory/release(_:)``.
public struct StoreLease<Store: AnyObject & Sendable>: Sendable {
    /// The store.
    public let store: Store
    let entry: StoreDirectoryEntry
}
