public import Logging
public import MicroHTTP
public import ReMVVM
public import ServiceLifecycle
import ConcurrencyKit

/// Serves a store over HTTP as `docs/http-api.md` describes: actions in, state, view models and
/// live events out, and a problem detail for every error.
///
/// Its ``router()`` is a ``MicroHTTP/Responder``: ``ReMVVMServer`` runs it on an
/// ``MicroHTTP/HTTPServer``, and tests can call it directly, without a socket. As a `Service` it
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

    /// Creates the service; call ``start()`` (or run it as a `Service`) before serving requests.
    public init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        configuration: ServiceConfiguration = ServiceConfiguration(),
        logger: Logger = Logger(label: "remvvm.service")
    ) {
        self.store = store
        self.actionDecoder = ActionBatchDecoder(registry: actions)
        self.viewModels = viewModels
        self.configuration = configuration
        self.logger = logger
        self.hub = EventHub(
            store: store,
            actions: actions,
            stateCache: stateCache,
            backlogBytes: configuration.subscriberBacklogBytes,
            lagBudgetBytes: configuration.eventLagBudgetBytes,
            reconnectDelay: configuration.reconnectDelay,
            versionTags: configuration.versionTags,
            logger: logger
        )
    }

    /// Starts publishing state changes to event subscribers; idempotent. Throws
    /// ``ServiceConfigurationError`` for a configuration outside ``ServiceConfiguration/Allowed``.
    public func start() throws {
        try configuration.validate()
        try hub.start()
    }

    /// Publishes every state change reduced so far to every event stream, ends the streams and
    /// stops publishing; idempotent.
    public func stop() {
        hub.stop()
    }

    /// The number of connected `GET /events` subscribers.
    public var subscriberCount: Int {
        hub.subscriberCount
    }

    /// Waits until `condition` holds for ``subscriberCount``, re-checking it whenever the count
    /// changes; false after `timeout`. Blocks the calling thread: for tests and tools.
    public func waitForSubscribers(timeout: Duration, until condition: (Int) -> Bool) -> Bool {
        hub.waitForSubscribers(timeout: timeout, until: condition)
    }

    /// Every route of the HTTP API, with problem details for 404, 405 and refused requests.
    public func router() -> Router {
        var router = Router()
        router.add(.POST, "/actions") { [self] request, _ in postActions(request) }
        router.add(.GET, "/state") { [self] request, _ in getState(request) }
        router.add(.GET, "/viewmodels") { [self] _, _ in listViewModels() }
        router.add(.GET, "/viewmodels/:name") { [self] request, parameters in
            getViewModel(named: parameters["name"] ?? "", key: request.query["key"])
        }
        router.add(.GET, "/events") { [self] _, _ in getEvents() }
        router.add(.GET, "/healthz") { [self] _, _ in getHealth() }
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
