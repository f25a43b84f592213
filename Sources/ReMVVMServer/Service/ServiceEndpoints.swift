import Logging
import MicroHTTP
import ReMVVM

/// The service's request handlers and what they share.
final class ServiceEndpoints<State: StoreState & Codable>: Sendable {
    let store: Store<State>
    let actionDecoder: ActionBatchDecoder
    let viewModels: ViewModelRegistry<State>
    let configuration: ServiceConfiguration
    let logger: Logger
    let stateCache = EncodedStateCache<State>()
    let viewModelCache = ViewModelCache()
    let hub: EventHub<State>

    init(
        store: Store<State>,
        actions: ActionRegistry,
        viewModels: ViewModelRegistry<State>,
        configuration: ServiceConfiguration,
        logger: Logger
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

    /// Every route of the HTTP API, with problem details for 404, 405 and refused requests.
    func router() -> Router {
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
