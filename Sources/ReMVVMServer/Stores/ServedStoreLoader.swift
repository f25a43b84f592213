import Journal
import Logging
import ReMVVM
import Synchronization

/// Loads the stores of a ``ReMVVMService`` other than `default` for its ``StoreDirectory``: a new
/// `Store` of the domain, kept in memory, in the store's own journal view, or as a replica of the
/// store's view of the shared log, served with tags that carry the store's incarnation (so that
/// no tag or event id of a deleted store of the same id matches), and started (for a journal:
/// its snapshot and the records after it replayed; for a replica: its local snapshot, then the
/// log after it, followed while the store is loaded).
struct ServedStoreLoader<State: StoreState & Codable>: StoreLoader {
    /// What every store of the service shares.
    let environment: StoreEnvironment<State>
    /// Where the stores keep their versions.
    let storage: StoreStorage
    /// A store of the domain at its initial state.
    let makeStore: @Sendable () throws -> ReMVVM.Store<State>
    /// Where a store in memory records every version it publishes (its catalog's `version` and
    /// `lastActionAt`); nil with a journal, which keeps them itself.
    let activities: ActivityRecording?
    /// The service's own replica configuration (its name, expiry and renewal), when it is one.
    let replication: ReplicaConfiguration?
    /// Told when the log stopped following a replica's store for good, with the store's
    /// description: the directory then drops it if the log's catalog no longer holds it.
    let followingStopped: DeletionWatch<State>

    /// Stores in memory have nothing to be loaded again from: they stay until deleted.
    var unloads: Bool {
        if case .memory = storage { return false }
        return true
    }

    func load(_ description: StoreDescription) throws -> ServedStore<State> {
        let store = try makeStore()
        // Weak: the backend holds the callback that reads it, and the served store the backend;
        // a strong reference here kept every store the replica ever loaded alive after its unload.
        let loaded = Mutex(WeakServedStore<State>())
        let backend: any StoreBackend<State>
        switch storage {
        case .memory:
            backend = MemoryBackend(store: store, codec: environment.codec, actionLogBudget: environment.actionLogBudget)
        case .journal(let open):
            backend = JournalBackend(
                store: store,
                storage: try open(description.id),
                codec: environment.codec,
                configuration: environment.configuration,
                requestConnections: environment.requestConnections,
                logger: environment.logger
            )
        case .replica(let stores):
            guard let replication else {
                throw JournalError(code: .unusable, message: "stores of a shared log are served only by a service that is a replica of it")
            }
            let logger = environment.logger.forStore(description.id)
            let watch = followingStopped
            backend = ReplicaBackend(
                store: store,
                replication: ReplicaConfiguration(
                    log: stores.log(description.id), snapshots: try stores.snapshots(description), name: replication.name,
                    expiry: replication.expiry, renewal: replication.renewal
                ),
                codec: environment.codec,
                configuration: environment.configuration,
                role: .store(onStopped: { reason in
                    if let served = loaded.withLock({ $0.served }) {
                        watch.stopped(served, description: description, reason: reason, logger: logger)
                    }
                }),
                logger: logger
            )
        }
        let served = ServedStore(
            id: description.id, backend: backend, versionTags: VersionTags(instance: description.incarnation), environment: environment
        )
        // Only a replica's store has a callback that reads it: a weak reference gives an object a
        // side table, and every retain and release of it then takes the slow path (four of each a
        // request, ~350 instructions).
        if case .replica = storage {
            loaded.withLock { $0.served = served }
        }
        try served.start()
        activities?.record(served.publisher, of: description.id)
        return served
    }

    /// Stops the store: what its journal holds is committed and its last snapshot written (a
    /// replica's registered in the log, which it no longer follows for the store), its streams
    /// (none: the directory unloads only stores without) end.
    func unload(_ store: ServedStore<State>) {
        store.stop()
    }

    /// Stops the stores; a replica's store their last snapshots locally in one transaction, then
    /// register them in the log in one (each store on its own took a local sync and 3–4
    /// PostgreSQL transactions: seconds to stop with 2,000 stores loaded), without retention
    /// (which runs after each store's next snapshot). A snapshot not stored or not registered
    /// holds no records back, but the one registered before it does: the store loads again from
    /// either.
    func unload(_ stores: [ServedStore<State>]) {
        guard case .replica(let replicaStores) = storage, let replication else {
            for store in stores { unload(store) }
            return
        }
        let batch = StoreStopBatch()
        for store in stores { store.stop(in: batch) }
        let logger = environment.logger
        let toStore = batch.snapshotsToStore
        var stored: Set<StoreID> = []
        do {
            stored = try replicaStores.saveSnapshots(toStore)
        } catch {
            logger.error("the last snapshots of \(toStore.count) stores unloaded could not be written (\(error)); each loads again from its previous snapshot and the log after it")
        }
        let snapshots = batch.registrations(stored: stored)
        guard !snapshots.isEmpty else { return }
        do {
            let registered = try replicaStores.register(replication.name, snapshots)
            if registered.count < snapshots.count {
                let missing = snapshots.keys.filter { !registered.contains($0) }.sorted().prefix(10)
                logger.notice("\(snapshots.count - registered.count) of the \(snapshots.count) stores unloaded had their last snapshot not registered in the shared log (deleted meanwhile, or records after it removed), among them \(missing.map(\.rawValue).joined(separator: ", "))")
            }
        } catch {
            logger.warning("the last snapshots of \(snapshots.count) stores unloaded could not be registered in the shared log (\(error)); their previous registrations hold the records they need, and each is registered again when the store is loaded")
        }
    }

    /// Ends a deleted store: its streams end (with the shutdown termination), it stops, keeping
    /// nothing more.
    func end(_ store: ServedStore<State>) {
        store.end()
    }

    /// A replica's local snapshots of the store go.
    func deleted(_ id: StoreID) {
        guard case .replica(let stores) = storage else { return }
        do {
            try stores.forget(id)
        } catch {
            environment.logger.warning("the local snapshots of the deleted store \(id) could not be removed (\(error)); they are replaced if a store of that id is loaded again")
        }
    }

    func hasOpenStreams(_ store: ServedStore<State>) -> Bool {
        store.hub.hasOpenStreams || store.viewModelHub.hasOpenStreams
    }
}

/// A served store held weakly: what a store's own callbacks use to reach it.
struct WeakServedStore<State: StoreState & Codable> {
    weak var served: ServedStore<State>?
}

extension Logger {
    /// This logger, its lines naming the store `id` (metadata `store`).
    func forStore(_ id: StoreID) -> Logger {
        var logger = self
        logger[metadataKey: "store"] = "\(id)"
        return logger
    }
}
