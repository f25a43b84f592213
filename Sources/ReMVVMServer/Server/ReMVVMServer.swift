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

    /// Ends every event stream cleanly (after the events already published), lets in-flight requests
    /// finish, then stops listening. Idempotent.
    ///
    /// The event hub stops first: it hands every published version to the streams and closes them,
    /// so no subscriber misses an event that was reduced before the shutdown. The HTTP server then
    /// flushes the streams, waits for requests in flight and stops.
    public func shutdown(timeout: Duration = .seconds(5)) {
        service.stop()
        http.shutdown(timeout: timeout)
    }
}
