public import Journal

extension StoreDirectory {
    /// One store as `GET /stores/{id}` shows it: its catalog description and whether it is
    /// loaded now.
    public struct Listing: Sendable, Equatable {
        /// What the catalog knows.
        public var description: StoreDescription
        /// Whether it is loaded now.
        public var loaded: Bool
    }

    /// Creates the store `id` (`PUT /stores/{id}`) unless it exists; does not load it.
    /// - Throws: ``StoreDirectoryError/limitReached(limit:)``, ``StoreDirectoryError/unavailable(_:reason:)``.
    public func create(_ id: StoreID) throws(StoreDirectoryError) -> StoreCreation {
        let creation: StoreCreation
        do {
            creation = try catalog.create(id, limit: limits.maxStores, at: now())
        } catch {
            throw Self.failure(writing: id, error)
        }
        if case .limitReached = creation { throw .limitReached(limit: limits.maxStores) }
        return creation
    }

    /// The store `id` as `GET /stores/{id}` shows it; nil when it does not exist.
    public func describe(_ id: StoreID) throws(StoreDirectoryError) -> Listing? {
        let description: StoreDescription?
        do {
            description = try catalog.describe(id)
        } catch {
            throw .unavailable(id, reason: "the catalog of stores cannot be read: \(error)")
        }
        return description.map { Listing(description: $0, loaded: isLoaded(id)) }
    }

    /// The fewest catalog rows a page of ``list(prefix:after:limit:isVisible:)`` reads at once.
    static var listingPageMinimum: Int { 100 }

    /// Up to `limit` stores whose id starts with `prefix`, after `after`, ordered by id
    /// (`GET /stores`), with those `isVisible` refuses left out (a token's reach); the next page
    /// starts after the page's last id, nil when no visible store follows it (a store out of reach
    /// never shows, not even as a next page).
    public func list(
        prefix: String, after: StoreID?, limit: Int, isVisible: (StoreID) -> Bool = { _ in true }
    ) throws(StoreDirectoryError) -> (stores: [Listing], next: StoreID?) {
        var stores: [Listing] = []
        var cursor = after
        // Pages of the catalog until `limit` visible stores are found or the catalog ends: a
        // token that reaches few stores gets full pages, not empty ones with a next id. Each page
        // asks one more than it needs, to know whether any is left, and at least
        // ``listingPageMinimum``: a token that reaches few of many stores would otherwise page
        // through the catalog a row or two at a time.
        while true {
            let asked = max(limit - stores.count, Self.listingPageMinimum) + 1
            let page: [StoreDescription]
            do {
                page = try catalog.list(prefix: prefix, after: cursor, limit: asked)
            } catch {
                throw .unavailable(.default, reason: "the catalog of stores cannot be read: \(error)")
            }
            for description in page {
                if isVisible(description.id) {
                    // A full page has a next page only when a store in reach follows it.
                    if stores.count == limit { return (stores, stores.last?.description.id) }
                    stores.append(Listing(description: description, loaded: isLoaded(description.id)))
                }
                cursor = description.id
            }
            if page.count < asked { return (stores, nil) }
        }
    }

    /// Deletes the store `id` (`DELETE /stores/{id}`): requests for it wait, those holding it
    /// finish, its streams end, then the catalog removes it with its records and snapshots.
    /// Returns false when it did not exist.
    /// - Throws: ``StoreDirectoryError/defaultCannotBeDeleted``, ``StoreDirectoryError/unavailable(_:reason:)``.
    public func delete(_ id: StoreID) throws(StoreDirectoryError) -> Bool {
        guard id != .default else { throw .defaultCannotBeDeleted }
        let (entry, store) = try takeForDeletion(id)
        _ = state.wait(timeout: waitLimit) { _ in entry.inUse == 0 }
        if let store { loader.end(store) }
        defer { remove(entry, phase: .gone(nil)) }
        let deleted: Bool
        do {
            deleted = try catalog.delete(id)
        } catch {
            throw Self.failure(writing: id, error)
        }
        loader.deleted(id)
        return deleted
    }

    /// Why a creation or deletion of `id` in the catalog failed: its outcome unknown (a shared
    /// log's `COMMIT` lost), or nothing changed.
    private static func failure(writing id: StoreID, _ error: JournalError) -> StoreDirectoryError {
        error.code == .outcomeUnknown
            ? .outcomeUnknown(id, reason: error.message)
            : .unavailable(id, reason: "the catalog of stores cannot be written: \(error)")
    }

    /// Takes out the loaded `store` of `id` when the catalog no longer holds the store of
    /// `incarnation` (another server sharing the catalog deleted it, or deleted it and created it
    /// again: a replica's store deleted on another replica): requests for it wait, those holding
    /// it finish, its streams end, the loader forgets it, and the next request finds it absent
    /// (or loads the new one). Returns whether it took the store out; false while the catalog
    /// cannot be read, and when `store` is no longer the one loaded under `id`. Blocks the
    /// calling thread while requests hold the store (up to the wait limit).
    @discardableResult
    public func dropIfDeleted(_ id: StoreID, incarnation: String, loaded store: Store) -> Bool {
        guard id != .default else { return false }
        do {
            if let found = try catalog.describe(id), found.incarnation == incarnation { return false }
        } catch {
            return false
        }
        let entry: Entry? = state.withLock(waitingUntil: { state in !(state.entries[id]?.isBusy ?? false) }, timeout: waitLimit) { state, _ in
            guard let entry = state.entries[id], entry.loadedStore === store else { return nil }
            entry.phase = .deleting
            state.loaded.remove(entry)
            return entry
        }
        guard let entry else { return false }
        state.notifyAll()
        _ = state.wait(timeout: waitLimit) { _ in entry.inUse == 0 }
        loader.end(store)
        loader.deleted(id)
        remove(entry, phase: .gone(nil))
        return true
    }

    /// Waits until the store `id` is not loaded (unloaded, or being unloaded or deleted); false
    /// after `timeout`. For tests.
    func waitUntilNotLoaded(_ id: StoreID, timeout: Duration) -> Bool {
        state.wait(timeout: timeout) { $0.entries[id]?.loadedStore == nil }
    }

    /// Marks the entry of `id` deleting once no other request loads, unloads or deletes it (a
    /// new entry when it is not loaded), so that requests for it wait until the delete ends.
    private func takeForDeletion(_ id: StoreID) throws(StoreDirectoryError) -> (Entry, Store?) {
        let taken: (Entry, Store?)? = state.withLock(
            waitingUntil: { state in !(state.entries[id]?.isBusy ?? false) }, timeout: waitLimit
        ) { state, settled in
            guard settled else { return nil }
            if let entry = state.entries[id], let store = entry.store(as: Store.self) {
                entry.phase = .deleting
                state.loaded.remove(entry)
                return (entry, store)
            }
            let entry = Entry(id: id, phase: .deleting, lastUsed: now())
            state.entries[id] = entry
            return (entry, nil)
        }
        state.notifyAll()
        guard let taken else {
            throw .unavailable(id, reason: "another request has been loading or deleting it for longer than \(waitLimit)")
        }
        return taken
    }
}
