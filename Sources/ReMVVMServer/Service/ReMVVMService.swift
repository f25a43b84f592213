public import AccessControl
public import Journal
public import Logging
public import MicroHTTP
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
    let store: Store<State>
    let actionDecoder: ActionBatchDecoder
    let viewModels: ViewModelRegistry<State>
    let configuration: ServiceConfiguration
    let logger: Logger
    let stateCache = EncodedStateCache<State>()
    let viewModelCache = ViewModelCache()
    let hub: EventHub<State>
    /// Streams view models (`GET /viewmodels/<name>/events`, `GET /viewmodels/events`).
    let viewModelHub: ViewModelHub<State>
    let codec: ActionJournalCodec
    /// The action log without a journal (nil with one).
    let recentActions: RecentActions?
    let idempotencyKeys: IdempotencyKeys
    let metrics: ServiceMetrics?
    /// Who may call which route; disabled (everything open) unless tokens are configured.
    let accessControl: BearerAuthorizer
    /// The connections that may send requests, as the HTTP server counts them.
    let requestConnections = RequestConnections()
    private let journalStorage: (any JournalStorage)?
    /// Set once by ``start()`` when the service has a journal.
    private let durableRuntime = AtomicLazyReference<DurableRuntime<State>>()
    /// When the service is one replica of a shared log.
    let replication: ReplicaConfiguration?
    /// Set once by ``start()`` when the service is a replica.
    private let replicaRuntime = AtomicLazyReference<ReplicaRuntime<State>>()
    /// Whether ``start()`` set a durable or replica runtime: read first by ``durable``,
    /// ``replica`` and ``publisher`` (several times per request), so that a store in memory
    /// pays one load of a plain flag instead of loading both runtimes, each load instantiating
    /// the generic metadata of `AtomicLazyReference<…<State>>` (about 600 instructions).
    private let hasRuntime = Atomic<Bool>(false)
    /// Serializes ``start()``: restoring the store from the journal must happen once.
    private let starting = Lock(())

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
        self.store = store
        self.accessControl = accessControl
        codec = ActionJournalCodec(registry: actions)
        recentActions = journal == nil && replication == nil ? RecentActions(store: store, codec: codec) : nil
        journalStorage = journal
        self.replication = replication
        let keptAnswers: (any JournalStorage)? = journal ?? replication.map { ReplicaStorage(snapshots: $0.snapshots, log: $0.log) }
        idempotencyKeys = IdempotencyKeys(
            backing: keptAnswers.map { .journal($0) } ?? .memory(limit: configuration.idempotencyMemoryLimit),
            retention: configuration.idempotencyRetention,
            logger: logger
        )
        metrics = configuration.metricsEnabled ? ServiceMetrics(actionTypes: actions.namesByType, replica: replication != nil) : nil
        self.actionDecoder = ActionBatchDecoder(registry: actions)
        self.viewModels = viewModels
        self.configuration = configuration
        self.logger = logger
        self.hub = EventHub(
            actions: actions,
            stateCache: stateCache,
            backlogBytes: configuration.subscriberBacklogBytes,
            lagBudgetBytes: configuration.eventLagBudgetBytes,
            reconnectDelay: configuration.reconnectDelay,
            versionTags: configuration.versionTags,
            replayEvents: configuration.replayRingEvents,
            replayBytes: configuration.replayRingBytes,
            metrics: metrics,
            logger: logger
        )
        viewModelHub = ViewModelHub(
            registry: viewModels,
            versionTags: configuration.versionTags,
            reconnectDelay: configuration.reconnectDelay,
            backlogBytes: configuration.subscriberBacklogBytes,
            metrics: metrics,
            logger: logger
        )
    }

    /// Starts publishing state changes to event subscribers; idempotent. Throws
    /// ``ServiceConfigurationError`` for a configuration outside ``ServiceConfiguration/Allowed``
    /// or a replica's renewal that cannot keep its registration (``ReplicaConfiguration/validate()``).
    /// With a journal, restores the store from it first and throws `JournalError` (module `Journal`) when
    /// the journal cannot be read (the server must not start then).
    public func start() throws {
        try configuration.validate()
        try replication?.validate()
        try starting.withLock { _ in
            if let journalStorage, durableRuntime.load() == nil {
                let runtime = try DurableRuntime(
                    store: store,
                    storage: journalStorage,
                    codec: codec,
                    snapshotEvery: configuration.snapshotEvery,
                    retention: configuration.journalRetention,
                    logger: logger
                )
                if durableRuntime.storeIfNil(runtime) === runtime {
                    hasRuntime.store(true, ordering: .releasing)
                    runtime.journal.onAnswers { [idempotencyKeys] answers, result in
                        idempotencyKeys.journalCommitted(answers, result)
                    }
                    if let metrics {
                        runtime.journal.onCommit { records, duration in
                            metrics.journalCommitted(actions: records, duration: duration)
                        }
                    }
                }
            }
            if let replication, replicaRuntime.load() == nil {
                let runtime = try ReplicaRuntime(
                    store: store,
                    log: replication.log,
                    snapshots: replication.snapshots,
                    name: replication.name,
                    codec: codec,
                    snapshotEvery: configuration.snapshotEvery,
                    retention: configuration.journalRetention,
                    expiry: replication.expiry,
                    renewal: replication.renewal,
                    logger: logger
                )
                if replicaRuntime.storeIfNil(runtime) === runtime {
                    hasRuntime.store(true, ordering: .releasing)
                    if let metrics {
                        replication.log.onCommit { actions, duration in
                            metrics.journalCommitted(actions: actions, duration: duration)
                        }
                    }
                }
            }
            try hub.start(source: publisher)
            viewModelHub.start(source: publisher)
        }
    }

    /// Commits what the journal holds, publishes every durable state change to every event stream,
    /// ends the streams and stops publishing; idempotent.
    public func stop() {
        durableRuntime.load()?.stop()
        replicaRuntime.load()?.stop()
        hub.stop()
        viewModelHub.stop()
    }

    /// The journal's runtime, once started with one.
    var durable: DurableRuntime<State>? {
        hasRuntime.load(ordering: .acquiring) ? durableRuntime.load() : nil
    }

    /// The replica's runtime, once started as one.
    var replica: ReplicaRuntime<State>? {
        hasRuntime.load(ordering: .acquiring) ? replicaRuntime.load() : nil
    }

    /// The journal `GET /actions` and resuming streams read: the durable store's, or the shared
    /// log a replica follows; nil in memory.
    var journalReader: (any JournalStorage)? {
        durable?.storage ?? replica?.storage
    }

    /// Where reads and events get states: only what is durable when there is a journal; what the
    /// replica applied from the shared log.
    var publisher: any StatePublisher<State> {
        guard hasRuntime.load(ordering: .acquiring) else { return store }
        if let gate = durableRuntime.load()?.gate { return gate }
        if let replica = replicaRuntime.load() { return replica.publisher }
        return store
    }

    /// The number of connected `GET /events` subscribers.
    public var subscriberCount: Int {
        hub.subscriberCount
    }

    /// The number of open view-model streams (`GET /viewmodels/…/events`).
    public var viewModelSubscriberCount: Int {
        viewModelHub.subscriberCount
    }

    /// How many view models the view-model streams made, and how many of those they encoded,
    /// since start: one per changed (name, key) and version, whatever the number of streams.
    public var viewModelStreamWork: (made: Int, encoded: Int) {
        viewModelHub.statistics
    }

    /// Waits until `condition` holds for ``viewModelSubscriberCount``; false after `timeout`.
    public func waitForViewModelSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        viewModelHub.waitForSubscribers(timeout: timeout, until: condition)
    }

    /// Waits until `condition` holds for ``subscriberCount``, re-checking it whenever the count
    /// changes; false after `timeout`. Blocks the calling thread: for tests and tools.
    public func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        hub.waitForSubscribers(timeout: timeout, until: condition)
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

    /// Every route of the HTTP API, with problem details for 404, 405 and refused requests.
    public func router() -> Router {
        var router = Router()
        router.add(.POST, "/actions") { [self] request, _ in postActions(request) }
        router.add(.GET, "/actions") { [self] request, _ in getActions(request) }
        router.add(.GET, "/state") { [self] request, _ in getState(request) }
        router.add(.GET, "/viewmodels") { [self] _, _ in listViewModels() }
        router.add(.GET, "/viewmodels/:name") { [self] request, parameters in
            getViewModel(named: parameters["name"] ?? "", key: request.query["key"])
        }
        router.add(.GET, "/viewmodels/events") { [self] request, _ in getViewModelEvents(request) }
        router.add(.GET, "/viewmodels/:name/events") { [self] request, parameters in
            getViewModelEvents(named: parameters["name"] ?? "", request)
        }
        router.add(.POST, "/viewmodels/:name/commands/:command") { [self] request, parameters in
            postCommand(request, viewModel: parameters["name"] ?? "", command: parameters["command"] ?? "")
        }
        router.add(.GET, "/events") { [self] request, _ in getEvents(request) }
        router.add(.GET, "/healthz") { [self] _, _ in getHealth() }
        addInspectorRoutes(to: &router)
        addAppRoutes(to: &router)
        let openAPI = (try? OpenAPIDocument(
            actions: codec.registry,
            viewModelNames: viewModels.names,
            commands: viewModels.allCommands.map { .init(viewModel: $0.viewModel, name: $0.command.name, bodyType: $0.command.bodyType) },
            metricsEnabled: metrics != nil,
            durable: journalStorage != nil || replication != nil,
            accessControl: accessControl.isEnabled
        ).json()) ?? Array("{}".utf8)
        router.add(.GET, "/openapi.json") { _, _ in JSONCoding.response(openAPI) }
        if let metrics {
            router.add(.GET, "/metrics") { [self] _, _ in
                Response(
                    status: 200,
                    headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
                    body: .bytes(metrics.render(
                        storeVersion: publisher.snapshot.version,
                        subscribers: hub.subscriberCount,
                        viewModelStreams: (viewModelHub.subscriberCount, viewModelHub.statistics.made, viewModelHub.statistics.encoded),
                        replica: replication.map {
                            (
                                $0.log.knownHead - min($0.log.knownHead, $0.log.applied), $0.log.status == .following,
                                replica?.registrationRenewedAt ?? 0
                            )
                        }
                    ))
                )
            }
        }
        router.notFound = { Problem.notFound(path: $0.path).response }
        router.methodNotAllowed = { request, allowed in
            Problem.methodNotAllowed(
                method: request.method.rawValue,
                path: request.path,
                allowed: allowed.map(\.rawValue)
            ).response
        }
        router.failure = { failure, _, _ in Problem.refused(failure).response }
        return router
    }
}

extension ReMVVMService: Service {
    /// Publishes events until graceful shutdown or cancellation, then ``stop()``s. Starts the
    /// publisher unless it runs already (``ReMVVMServer`` starts it before the HTTP server, so that
    /// no subscriber arrives before it).
    public func run() async throws {
        try start()
        try? await gracefulShutdown()
        await runOnOwnThread { [self] in stop() }
    }
}
