public import Logging
public import MicroHTTP
public import ReMVVM

/// Serves a store over HTTP as `docs/http-api.md` describes: actions in, state, view models and
/// live events out, and a problem detail for every error.
///
/// Its ``router`` is a ``MicroHTTP/Responder``; ``ReMVVMServer`` runs it on an ``MicroHTTP/HTTPServer``.
public final class ReMVVMService<State: StoreState & Codable>: Sendable {
    private let endpoints: ServiceEndpoints<State>

    /// Routes every documented endpoint; unknown paths get 404 and wrong methods 405, as problems.
    public let router: Router

    /// Creates the service; call ``start()`` before serving requests.
    public init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        configuration: ServiceConfiguration = ServiceConfiguration(),
        logger: Logger = Logger(label: "remvvm.service")
    ) {
        let endpoints = ServiceEndpoints(
            store: store,
            actions: actions,
            viewModels: viewModels,
            configuration: configuration,
            logger: logger
        )
        self.endpoints = endpoints
        self.router = endpoints.router()
    }

    /// Starts publishing state changes to event subscribers.
    public func start() throws {
        try endpoints.hub.start()
    }

    /// Ends every event stream (after what is queued) and stops publishing.
    public func stop() {
        endpoints.hub.stop()
    }

    /// The number of connected `GET /events` subscribers.
    public var subscriberCount: Int {
        endpoints.hub.subscriberCount
    }
}
