import Journal
import ReMVVM

/// Loads the stores of a ``ReMVVMService`` other than `default` for its ``StoreDirectory``: a new
/// `Store` of the domain, kept in memory or in the store's own journal view, served with tags that
/// carry the store's incarnation (so that no tag or event id of a deleted store of the same id
/// matches), and started (for a journal: its snapshot and the records after it replayed).
struct ServedStoreLoader<State: StoreState & Codable>: StoreLoader {
    /// What every store of the service shares.
    let environment: StoreEnvironment<State>
    /// Where the stores keep their versions.
    let storage: StoreStorage
    /// A store of the domain at its initial state.
    let makeStore: @Sendable () throws -> ReMVVM.Store<State>
    /// Told of every version a store in memory publishes (its catalog's `version` and
    /// `lastActionAt`); nil with a journal, which keeps them itself.
    let recordActions: (@Sendable (StoreID, UInt64) -> Void)?

    /// Stores in memory have nothing to be loaded again from: they stay until deleted.
    var unloads: Bool {
        if case .journal = storage { return true }
        return false
    }

    func load(_ description: StoreDescription) throws -> ServedStore<State> {
        let store = try makeStore()
        let backend: any StoreBackend<State>
        switch storage {
        case .memory:
            backend = MemoryBackend(store: store, codec: environment.codec)
        case .journal(let open):
            backend = JournalBackend(
                store: store,
                storage: try open(description.id),
                codec: environment.codec,
                configuration: environment.configuration,
                requestConnections: environment.requestConnections,
                logger: environment.logger
            )
        }
        let served = ServedStore(
            id: description.id, backend: backend, versionTags: VersionTags(instance: description.incarnation), environment: environment
        )
        try served.start()
        if let recordActions {
            let id = description.id
            served.publisher.addPublicationHandler { publication in recordActions(id, publication.version) }
        }
        return served
    }

    /// Stops the store: what its journal holds is committed and its last snapshot written, its
    /// streams (none: the directory unloads only stores without) end.
    func unload(_ store: ServedStore<State>) {
        store.stop()
    }

    /// Ends a deleted store: its streams end (with the shutdown termination), it stops.
    func end(_ store: ServedStore<State>) {
        store.stop()
    }

    func hasOpenStreams(_ store: ServedStore<State>) -> Bool {
        store.hub.subscriberCount > 0 || store.viewModelHub.subscriberCount > 0
    }
}
