public import Logging
public import MicroHTTP
public import ReMVVM

/// A store served over HTTP: a ``ReMVVMService`` running on a ``MicroHTTP/HTTPServer``.
///
/// ```swift
/// var actions = ActionRegistry()
/// actions.register(Increase.self, as: "increase")
/// var viewModels = ViewModelRegistry<AppState>()
/// viewModels.register(CounterViewModel.self, as: "counter")
/// let server = ReMVVMServer(store: try .example(), actions: actions, viewModels: viewModels)
/// try server.start()
/// ```
public final class ReMVVMServer<State: StoreState & Codable>: Sendable {
    /// The service (routes and event fan-out).
    public let service: ReMVVMService<State>
    private let http: HTTPServer
    private let logger: Logger

    /// Creates a server; nothing listens until ``start()``.
    public init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        http configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        service serviceConfiguration: ServiceConfiguration = ServiceConfiguration(),
        logger: Logger = Logger(label: "remvvm.server")
    ) {
        service = ReMVVMService(
            store: store,
            actions: actions,
            viewModels: viewModels,
            configuration: serviceConfiguration,
            logger: logger
        )
        http = HTTPServer(configuration: configuration, responder: service.router, logger: logger)
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
    }

    /// The port listened on (useful after binding port 0).
    public var port: Int {
        http.port
    }

    /// Stops gracefully; idempotent. In this order, so that every version acknowledged to a
    /// client reaches every event subscriber before its stream ends:
    /// 1. the HTTP server stops taking requests (new connections refused, later requests
    ///    answered 503 with `Connection: close`) and waits for the requests already running;
    /// 2. the event hub publishes every version reduced so far to every stream and ends them;
    /// 3. the HTTP server flushes the streams, waits for what is left and stops.
    public func shutdown(timeout: Duration = .seconds(5)) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        http.stopTakingRequests(timeout: timeout)
        service.stop()
        http.shutdown(timeout: max(.milliseconds(100), deadline - clock.now))
    }
}
