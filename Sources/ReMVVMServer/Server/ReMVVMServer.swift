public import AccessControl
public import Journal
public import Logging
public import MicroHTTP
public import ReMVVM
public import ServiceLifecycle

/// A store served over HTTP: a ``ReMVVMService`` running on the `HTTPServer` of the module `MicroHTTP`.
///
/// Run it as a `Service`, in a `ServiceGroup` that turns SIGTERM and SIGINT into a graceful
/// shutdown:
///
/// ```swift
/// var actions = ActionRegistry()
/// actions.register(Increase.self, as: "increase")
/// var viewModels = ViewModelRegistry<AppState>()
/// viewModels.register(CounterViewModel.self, as: "counter")
/// let server = ReMVVMServer(store: try .example(), actions: actions, viewModels: viewModels)
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// or drive it by hand with ``start()`` and ``shutdown(timeout:)``.
public final class ReMVVMServer<State: StoreState & Codable>: Sendable {
    /// The service (routes and event fan-out).
    public let service: ReMVVMService<State>
    let http: HTTPServer  // internal: tests wait on its occupancy
    private let host: String
    private let logger: Logger

    /// Creates a server; nothing listens until ``start()`` or ``run()``. With a `journal`, start
    /// restores the store from it and every reduced action is durable before anyone sees it. With
    /// `replication`, the server is one replica of a store shared through one ordered log.
    /// With `accessControl` configured, every route but `/healthz` needs a token (see
    /// ``ReMVVMService/init(store:actions:viewModels:configuration:accessControl:journal:replication:logger:)``);
    /// without, starting on an address other than loopback logs a warning.
    public init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        http configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        service serviceConfiguration: ServiceConfiguration = ServiceConfiguration(),
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        journal: (any JournalStorage)? = nil,
        replication: ReplicaConfiguration? = nil,
        logger: Logger = Logger(label: "remvvm.server")
    ) {
        let service = ReMVVMService(
            store: store,
            actions: actions,
            viewModels: viewModels,
            configuration: serviceConfiguration,
            accessControl: accessControl,
            journal: journal,
            replication: replication,
            logger: logger
        )
        self.service = service
        // The stop order that keeps every acknowledged version in the streams: the HTTP server
        // stops taking requests and lets those running finish, then the service publishes every
        // version reduced so far and ends the streams, then the HTTP server flushes and stops.
        http = HTTPServer(
            configuration: configuration,
            responder: service.responder(),
            logger: logger,
            beforeEndingStreams: { service.stop() }
        )
        service.requestConnections.attach { [weak http] in http?.requestConnectionCount ?? 0 }
        host = configuration.host
        self.logger = logger
    }

    /// Starts the event fan-out, then listens.
    public func start() throws {
        try service.start()
        do {
            try http.start()
        } catch {
            service.stop()
            throw error
        }
        logAccessControl()
    }

    /// The port listened on (useful after binding port 0).
    public var port: Int {
        http.port
    }

    /// Stops gracefully; idempotent. In this order, so that every version acknowledged to a
    /// client reaches every event subscriber before its stream ends:
    /// 1. the HTTP server stops taking requests (new connections refused, later requests
    ///    answered 503 with `Connection: close`) and waits for the requests already running;
    /// 2. the service publishes every version reduced so far to every stream and ends them;
    /// 3. the HTTP server flushes the streams, waits for what is left and stops.
    public func shutdown(timeout: Duration = .seconds(5)) {
        http.shutdown(timeout: timeout)
        service.stop()
    }
}

extension ReMVVMServer {
    /// Says at start who may call the server: what access control checks (never a token or a
    /// key: the authorizer shows their number and kind), or a warning when nothing is configured
    /// and the address is reachable from other machines.
    private func logAccessControl() {
        let authorizer = service.accessControl
        if authorizer.isEnabled {
            logger.info("access control: \(authorizer)")
        } else if !ListenHost.isLoopback(host) {
            logger.warning(
                "no access token is configured and the server listens on \(host): anyone who reaches port \(port) can read the state and dispatch actions; configure tokens (remvvm-server: REMVVM_AUTH_TOKENS, authTokenFile, a JWT key) or listen on 127.0.0.1"
            )
        }
        if !authorizer.isEnabled, service.configuration.corsAllowedOrigins == ["*"] {
            // Even on loopback: every page the machine's browser opens may call it.
            logger.warning(
                "corsAllowedOrigins is * and no access token is configured: a page from any site opened in a browser that reaches this server can read the state and dispatch actions; list the origins that may, or configure tokens"
            )
        }
    }
}

extension ReMVVMServer: Service {
    /// Starts the event fan-out, then the HTTP server (unless ``start()`` did), logs
    /// `listening on http://<host>:<port>`, and runs both as services until graceful shutdown or
    /// cancellation; they then stop in the order ``shutdown(timeout:)`` describes (the HTTP server
    /// first; it has the service publish and end the streams before it closes them).
    public func run() async throws {
        try service.start()
        let running: Bool
        do {
            running = try http.startIfIdle()
        } catch {
            service.stop()
            throw error
        }
        guard running else { return }
        logger.info("listening on http://\(HTTPServerConfiguration.authority(host: host, port: port))")
        logAccessControl()
        // A group shuts its services down in reverse order: the HTTP server, then the service.
        let group = ServiceGroup(services: [service, http], logger: logger)
        try await group.run()
    }
}
