public import AccessControl
public import Journal
public import Logging
import MicroHTTP
public import ReMVVM
public import ServiceLifecycle
import ConcurrencyKit
import Synchronization

/// Serves a store over HTTP as `docs/http-api.md` describes: actions in, state, view models and
/// live events out, and a problem detail for every error.
///
/// Its ``responder()`` is a `Responder` of the module `MicroHTTP`: ``ReMVVMServer`` runs it on
/// an `HTTPServer`, and tests can call it directly, without a socket. As a `Service` it
/// runs the event publisher until graceful shutdown.
public final class ReMVVMService<State: StoreState & Codable>: Sendable {
    /// The store `default`, which the root routes serve (held here: no lookup on their path).
    let root: ServedStore<State>
    /// What every store of the service shares.
    let environment: StoreEnvironment<State>
    let actionDecoder: ActionBatchDecoder
    let viewModels: ViewModelRegistry<State>
    let configuration: ServiceConfiguration
    let logger: Logger
    let codec: ActionJournalCodec
    let metrics: ServiceMetrics?
    /// Who may call which route; disabled (everything open) unless tokens are configured.
    let accessControl: BearerAuthorizer
    /// The connections that may send requests, as the HTTP server counts them.
    let requestConnections: RequestConnections
    /// Finds the stores of `/stores/{id}/…`; set at most once (``serveStores(with:)``), else only
    /// `default` exists there.
    /// A ``ConcurrencyKit/SetOnceReference`` holding a `ResolverSlot<State>`: an
    /// `AtomicLazyReference` reads unspecialized, about 775 instructions per store request.
    private let resolverSlot = SetOnceReference()

    /// Creates the service; call ``start()`` (or run it as a `Service`) before serving requests.
    ///
    /// - Parameter store: the store it serves.
    /// - Parameter actions: the wire names of the actions clients may send, with their types.
    /// - Parameter viewModels: the view models it serves, with their commands.
    /// - Parameter configuration: the service layer's settings (``ServiceConfiguration/Allowed``).
    /// - Parameter journal: where to keep every reduced action (`docs/http-api.md`, "Durability");
    ///   nil keeps the store in memory only. With a journal, ``start()`` first restores the store
    ///   from it, and nothing can see a version before the journal made it durable.
    /// - Parameter replication: makes the service one replica of a store that several servers
    ///   share through one ordered action log (`docs/replicas.md`); exclusive with `journal`.
    ///   ``start()`` restores the store from the replica's snapshot and follows the log.
    /// - Parameter accessControl: the tokens that may read and dispatch (`docs/http-api.md`,
    ///   "Access control and CORS"); the default has none, and every route is open. Kept apart
    ///   from `configuration`, which is plain data to compare and print: the authorizer holds
    ///   token digests and keys, and shows only their number and kind.
    /// - Parameter logger: where it logs starts, stops and problems.
    public init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        configuration: ServiceConfiguration = ServiceConfiguration(),
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        journal: (any JournalStorage)? = nil,
        replication: ReplicaConfiguration? = nil,
        logger: Logger = Logger(label: "remvvm.service")
    ) {
        let codec = ActionJournalCodec(registry: actions)
        let requestConnections = RequestConnections()
        let metrics = configuration.metricsEnabled ? ServiceMetrics(actionTypes: actions.namesByType) : nil
        let environment = StoreEnvironment(
            codec: codec,
            viewModels: viewModels,
            configuration: configuration,
            metrics: metrics,
            requestConnections: requestConnections,
            logger: logger,
            replayRingBudget: SharedBudget(total: configuration.replayRingBytes),
            actionLogBudget: SharedBudget(total: configuration.actionLogMemoryLimit),
            inMemoryAnswers: InMemoryAnswers(limit: configuration.idempotencyMemoryLimit)
        )
        let backend: any StoreBackend<State>
        if let replication {
            backend = ReplicaBackend(store: store, replication: replication, codec: codec, configuration: configuration, logger: logger)
        } else if let journal {
            backend = JournalBackend(
                store: store,
                storage: journal,
                codec: codec,
                configuration: configuration,
                requestConnections: requestConnections,
                logger: logger
            )
        } else {
            backend = MemoryBackend(store: store, codec: codec, actionLogBudget: environment.actionLogBudget)
        }
        self.codec = codec
        self.requestConnections = requestConnections
        self.metrics = metrics
        self.environment = environment
        self.accessControl = accessControl
        actionDecoder = ActionBatchDecoder(registry: actions)
        self.viewModels = viewModels
        self.configuration = configuration
        self.logger = logger
        root = ServedStore(id: .default, backend: backend, versionTags: configuration.versionTags, environment: environment)
    }

    /// Starts publishing state changes to event subscribers; idempotent. Throws
    /// ``ServiceConfigurationError`` for a configuration outside ``ServiceConfiguration/Allowed``
    /// or a replica's renewal that cannot keep its registration (``ReplicaConfiguration/validate()``).
    /// With a journal, restores the store from it first and throws `JournalError` (module `Journal`) when
    /// the journal cannot be read (the server must not start then).
    public func start() throws {
        try configuration.validate()
        try root.start()
    }

    /// Commits what the journal holds, publishes every durable state change to every event stream,
    /// ends the streams and stops publishing; idempotent.
    public func stop() {
        storeDirectory?.unloadAll()
        root.stop()
    }

    /// Serves the stores `resolver` finds under `/stores/{id}/…` instead of `default` alone, from
    /// the next such request on (responders made before included). False (and ignored) when a
    /// resolver was set before.
    @discardableResult
    func serveStores(with resolver: any StoreResolver<State>) -> Bool {
        let slot = ResolverSlot(resolver)
        return resolverSlot.storeIfNil(slot) === slot
    }

    /// The resolver of `/stores/{id}/…`: the one set by ``serveStores(with:)``, else `default` alone.
    var storeResolver: any StoreResolver<State> {
        // Cannot be another class: only ``serveStores(with:)`` stores, a `ResolverSlot<State>`.
        resolverSlot.load().map { unsafeDowncast($0, to: ResolverSlot<State>.self).resolver } ?? DefaultStoreOnly(root: root)
    }

    /// `respond`'s answer with the store `id` names, from the resolver ``storeResolver`` returns
    /// (``StoreResolver/serve(_:for:request:again:refusingCreation:_:)``: `refusal` is asked before a
    /// write creates a missing store), for a `/stores/{id}/…` request. Calls the slot's
    /// resolver where it is kept: making an `any StoreResolver<State>` of it, as ``storeResolver``
    /// does, looks the existential's and its optional's runtime types up (about 850 instructions
    /// a request).
    func serveStore(
        _ id: StoreID, for intent: StoreIntent, request: Request,
        again replay: StoreRequestReplay,
        refusingCreation refusal: () -> Response?,
        _ respond: (ServedStore<State>) -> Response
    ) -> Response {
        guard let slot = resolverSlot.load() else {
            return DefaultStoreOnly(root: root).serve(id, for: intent, request: request, again: replay, refusingCreation: refusal, respond)
        }
        // Cannot be another class: only ``serveStores(with:)`` stores, a `ResolverSlot<State>`.
        return unsafeDowncast(slot, to: ResolverSlot<State>.self).resolver
            .serve(id, for: intent, request: request, again: replay, refusingCreation: refusal, respond)
    }

    /// The number of connected `GET /events` subscribers.
    public var subscriberCount: Int {
        root.hub.subscriberCount
    }

    /// The number of open view-model streams (`GET /viewmodels/…/events`).
    public var viewModelSubscriberCount: Int {
        root.viewModelHub.subscriberCount
    }

    /// How many view models the view-model streams made, and how many of those they encoded,
    /// since start: one per changed (name, key) and version, whatever the number of streams.
    public var viewModelStreamWork: (made: Int, encoded: Int) {
        root.viewModelHub.statistics
    }

    /// Waits until `condition` holds for ``viewModelSubscriberCount``; false after `timeout`.
    public func waitForViewModelSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        root.viewModelHub.waitForSubscribers(timeout: timeout, until: condition)
    }

    /// Waits until `condition` holds for ``subscriberCount``, re-checking it whenever the count
    /// changes; false after `timeout`. Blocks the calling thread: for tests and tools.
    public func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        root.hub.waitForSubscribers(timeout: timeout, until: condition)
    }

    /// What answers every request: CORS, then access control, then the routes of ``router()``.
    public func responder() -> ServiceResponder {
        let router = router()
        return ServiceResponder(
            router: router,
            cors: (try? CORSPolicy(allowedOrigins: configuration.corsAllowedOrigins)) ?? .off,
            access: AccessGate(authorizer: accessControl),
            hosts: AcceptedHosts(accessControl.isEnabled ? .any : HostCheck(allowedHosts: configuration.allowedHosts)),
            metrics: metrics?.httpMetrics(for: router)
        )
    }
}

extension ReMVVMService: Service {
    /// Publishes events until graceful shutdown or cancellation, then ``stop()``s. Starts the
    /// publisher unless it runs already (``ReMVVMServer`` starts it before the HTTP server, so that
    /// no subscriber arrives before it).
    public func run() async throws {
        try start()
        let sweeper = Task { await sweepIdleStores() }
        try? await gracefulShutdown()
        sweeper.cancel()
        // An idle unload under way finishes first (its snapshots written and registered): the
        // stop's own unload of every store must not run beside it.
        await sweeper.value
        await runOnOwnThread { [self] in stop() }
    }
}

/// Holds a service's store resolver (a class, for `AtomicLazyReference`).
final class ResolverSlot<State: StoreState & Codable>: Sendable {
    let resolver: any StoreResolver<State>

    init(_ resolver: any StoreResolver<State>) {
        self.resolver = resolver
    }
}
