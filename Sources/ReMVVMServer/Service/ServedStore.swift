import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// One store a ``ReMVVMService`` serves: the store, the backend that keeps its versions (memory,
/// journal or replica), its event and view-model streams, its caches, its idempotency keys and
/// the tags its versions are shown with. Every store route takes the `ServedStore` it serves:
/// the root routes the store `default`, `/stores/{id}/…` the one a ``StoreResolver`` finds.
///
/// A version, tag, event id or idempotency key of one served store never means anything in
/// another: each has its own.
final class ServedStore<State: StoreState & Codable>: Sendable {
    // What every dispatch reads first, in the object's first cache line (with its reference
    // count): over many stores a store is touched once in a while, and each line is a miss.
    /// The store.
    let store: Store<State>
    /// Where its versions are kept and how it dispatches.
    let backend: any StoreBackend<State>
    /// How its versions are shown (`ETag`, event ids); another incarnation of the same id gets
    /// other tags.
    let versionTags: VersionTags
    /// The service's metrics (nil when off).
    let metrics: ServiceMetrics?
    /// Its id (`default` for the root routes).
    let id: StoreID
    /// Its `GET /events` streams.
    let hub: EventHub<State>
    /// Its view-model streams (`GET /viewmodels/<name>/events`, `GET /viewmodels/events`).
    let viewModelHub: ViewModelHub<State>
    /// The JSON of its newest state.
    let stateCache: EncodedStateCache<State>
    /// `GET /state`'s answer for its newest version read.
    let stateAnswers = StateAnswerCache()
    /// The JSON of its view models at its newest version.
    let viewModelCache = ViewModelCache()
    /// The answers kept for its `Idempotency-Key`s.
    let idempotencyKeys: IdempotencyKeys
    /// What all stores of the service share.
    let environment: StoreEnvironment<State>
    /// Where it logs.
    let logger: Logger
    /// Serializes ``start()``: restoring the store must happen once.
    private let starting = Lock(())

    /// A store served with `backend`, showing its versions with `versionTags`; nothing is
    /// restored or published before ``start()``.
    init(id: StoreID, backend: any StoreBackend<State>, versionTags: VersionTags, environment: StoreEnvironment<State>) {
        let configuration = environment.configuration
        self.id = id
        store = backend.store
        self.backend = backend
        self.versionTags = versionTags
        self.environment = environment
        metrics = environment.metrics
        logger = environment.logger
        let stateCache = EncodedStateCache<State>()
        self.stateCache = stateCache
        idempotencyKeys = IdempotencyKeys(
            backing: backend.keptAnswers.map { .journal($0) }
                ?? .memory(environment.inMemoryAnswers, scope: environment.inMemoryAnswers.makeScope()),
            retention: configuration.idempotencyRetention,
            logger: environment.logger
        )
        hub = EventHub(
            actions: environment.actions,
            stateCache: stateCache,
            backlogBytes: configuration.subscriberBacklogBytes,
            lagBudgetBytes: configuration.eventLagBudgetBytes,
            reconnectDelay: configuration.reconnectDelay,
            idleGrace: configuration.effectiveEventHubIdleGrace,
            versionTags: versionTags,
            replayEvents: configuration.replayRingEvents,
            ringBudget: environment.replayRingBudget,
            metrics: environment.metrics,
            logger: environment.logger
        )
        viewModelHub = ViewModelHub(
            registry: environment.viewModels,
            versionTags: versionTags,
            reconnectDelay: configuration.reconnectDelay,
            backlogBytes: configuration.subscriberBacklogBytes,
            metrics: environment.metrics,
            logger: environment.logger
        )
    }

    /// Restores the store through its backend, then starts publishing to its streams;
    /// idempotent. Throws what the backend throws (settings it cannot run with, a journal that
    /// cannot be read: the store must not be served then).
    func start() throws {
        try backend.validate()
        try starting.withLock { _ in
            try backend.start(keys: idempotencyKeys, metrics: metrics)
            let publisher = backend.publisher
            do {
                try hub.start(source: publisher)
            } catch {
                // Not served: nothing of it may keep running (a journal's thread, a replica's
                // place in the log), or every retry of the load would leave one more behind.
                backend.stop()
                throw error
            }
            viewModelHub.start(source: publisher)
        }
    }

    /// Makes durable what its backend holds, publishes every durable version to every stream,
    /// then ends the streams; idempotent. With a `batch` (stores stopped together), the backend
    /// leaves to it what is done for all of them at once (``StoreBackend/stop(id:batch:)``).
    func stop(in batch: StoreStopBatch? = nil) {
        if let batch {
            backend.stop(id: id, batch: batch)
        } else {
            backend.stop()
        }
        hub.stop()
        viewModelHub.stop()
    }

    /// Ends a deleted store: its backend stops keeping anything (``StoreBackend/end()``), its
    /// streams end; idempotent.
    func end() {
        backend.end()
        hub.stop()
        viewModelHub.stop()
    }

    /// Where reads and events get states (see ``StoreBackend/publisher``).
    var publisher: any StatePublisher<State> {
        backend.publisher
    }
}
