public import MicroHTTP
import Journal
import ReMVVM

/// A route of one store: what it answers for a request to the store it serves.
typealias StoreRouteHandler<State: StoreState & Codable> = @Sendable (Request, RouteParameters, ServedStore<State>) -> Response

/// What a store's write route refuses without a store (the request's own checks), or nil: asked
/// before the write creates a missing store (`autoCreateStores`), so that a bad request makes none.
typealias StoreRouteCheck = @Sendable (Request, RouteParameters) -> Response?

/// One route of every store.
struct StoreRoute<State: StoreState & Codable>: Sendable {
    let method: HTTPMethod
    /// Relative to the store: at the root for `default`, under ``ReMVVMService/storesPrefix``.
    let path: String
    let intent: StoreIntent
    /// The request's own checks, for a write (``StoreRouteCheck``); nil for a read.
    let check: StoreRouteCheck?
    let handle: StoreRouteHandler<State>

    init(
        _ method: HTTPMethod, _ path: String, _ intent: StoreIntent, check: StoreRouteCheck? = nil,
        _ handle: @escaping StoreRouteHandler<State>
    ) {
        self.method = method
        self.path = path
        self.intent = intent
        self.check = check
        self.handle = handle
    }
}

extension ReMVVMService {
    /// The prefix of the routes of the store `{id}`; the root routes are the store `default`'s.
    static var storesPrefix: String { "/stores/:store" }

    /// Every route of the HTTP API, with problem details for 404, 405 and refused requests.
    public func router() -> Router {
        var router = Router()
        addStoreRoutes(to: &router)
        addStoreManagementRoutes(to: &router)
        router.add(.GET, "/healthz") { [self, root] _, _ in getHealth(in: root) }
        addInspectorRoutes(to: &router)
        addAppRoutes(to: &router)
        let openAPI = (try? OpenAPIDocument(
            actions: codec.registry,
            viewModelNames: viewModels.names,
            commands: viewModels.allCommands.map { .init(viewModel: $0.viewModel, name: $0.command.name, bodyType: $0.command.bodyType) },
            metricsEnabled: metrics != nil,
            durable: root.backend.isDurable,
            accessControl: accessControl.isEnabled,
            navigation: viewModels.navigationTabs.map { tabs in
                .init(screens: viewModels.screenNames, tabs: tabs(root.publisher.snapshot.state))
            }
        ).json()) ?? Array("{}".utf8)
        router.add(.GET, "/openapi.json") { _, _ in JSONCoding.response(openAPI) }
        if let metrics {
            router.add(.GET, "/metrics") { [self, root] _, _ in
                storeDirectory?.recordMetrics()
                // Open streams are the server's (connections, memory): every loaded store's.
                let stores = storesHealth
                let viewModels = root.viewModelHub.statistics
                return Response(
                    status: 200,
                    headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
                    body: .bytes(metrics.render(
                        storeVersion: root.publisher.snapshot.version,
                        subscribers: stores?.eventStreams ?? root.hub.subscriberCount,
                        viewModelStreams: (stores?.viewModelStreams ?? root.viewModelHub.subscriberCount, viewModels.made, viewModels.encoded),
                        backendGauges: root.backend.gauges + (stores?.gauges ?? [])
                    ))
                )
            }
        }
        router.notFound = { Problem.notFound(path: $0.path).response }
        router.methodNotAllowed = { request, allowed in
            // The methods of the path's pattern: for `/stores/default` that includes `DELETE`, which
            // that store refuses with its own 405 (`default-store-undeletable`, `Allow: GET, HEAD,
            // PUT`). Kept as the pattern's so that `Allow` matches the OpenAPI document's methods.
            Problem.methodNotAllowed(
                method: request.method.rawValue,
                path: request.path,
                allowed: allowed.map(\.rawValue)
            ).response
        }
        router.failure = { failure, _, _ in Problem.refused(failure).response }
        return router
    }

    /// The routes of one store, each twice: at the root for the store `default` (held directly:
    /// nothing is looked up on their path), and under `/stores/{id}` for the store the resolver
    /// finds (a malformed id is `400`, an unknown one `404`).
    private func addStoreRoutes(to router: inout Router) {
        let answers = viewModelAnswers()
        let routes = storeRoutes(viewModelAnswers: answers)
        for route in routes {
            let handle = route.handle
            router.add(route.method, route.path) { [root] request, parameters in handle(request, parameters, root) }
        }
        // After the root ones: the router tries routes with parameters in the order added (among
        // those of as many leading literal segments), so `/viewmodels/:name` stays the first
        // it tries for a view model, as before.
        for route in routes {
            let endpoint = StoreRouteEndpoint(service: self, route: route)
            router.add(route.method, Self.storesPrefix + route.path) { request, parameters in
                endpoint.respond(to: request, parameters)
            }
        }
        addViewModelPaths(answers, to: &router)
    }

    /// Each registered view model's path at the root (`/viewmodels/counter`), added as an instance
    /// of `/viewmodels/:name` (the same answers, label and metrics) whose handler holds the view
    /// model's answer: found by the path's bytes, with no parameter matching and no lookup by
    /// name. A name the pattern does not match as one segment (with a `/`, or `events`) is not added.
    private func addViewModelPaths(_ answers: [String: ViewModelAnswer], to router: inout Router) {
        for (name, answer) in answers {
            router.add(.GET, "/viewmodels/" + name, instanceOf: "/viewmodels/:name") { [root] request, _ in
                answer.respond(request.query["key"], root)
            }
        }
    }

    /// The routes every store has, relative to the store: method, path, what they do to the
    /// store, a write's own checks and their handler.
    private func storeRoutes(viewModelAnswers: [String: ViewModelAnswer]) -> [StoreRoute<State>] {
        [
            StoreRoute(.POST, "/actions", .write, check: { [self] request, _ in refusalOfActions(request) }) { [self] request, _, served in
                postActions(request, in: served)
            },
            StoreRoute(.GET, "/actions", .read) { [self] request, _, served in getActions(request, in: served) },
            StoreRoute(.GET, "/state", .read) { [self] request, _, served in getState(request, in: served) },
            StoreRoute(.GET, "/viewmodels", .read) { [self] _, _, _ in listViewModels() },
            // Before `/viewmodels/:name`: under `/stores/:store` both have one leading literal
            // segment, so the router tries them in this order (at the root the literal path wins anyway).
            StoreRoute(.GET, "/viewmodels/events", .read) { [self] request, _, served in getViewModelEvents(request, in: served) },
            StoreRoute(.GET, "/viewmodels/:name", .read) { [self] request, parameters, served in
                let name = parameters["name"] ?? ""
                guard let answer = viewModelAnswers[name] else {
                    return Problem.unknownViewModel(name, known: viewModels.names).response
                }
                return answer.respond(request.query["key"], served)
            },
            StoreRoute(.GET, "/viewmodels/:name/events", .read) { [self] request, parameters, served in
                getViewModelEvents(named: parameters["name"] ?? "", request, in: served)
            },
            StoreRoute(
                .POST, "/viewmodels/:name/commands/:command", .write,
                check: { [self] request, parameters in
                    refusalOfCommand(request, viewModel: parameters["name"] ?? "", command: parameters["command"] ?? "")
                }
            ) { [self] request, parameters, served in
                postCommand(request, in: served, viewModel: parameters["name"] ?? "", command: parameters["command"] ?? "")
            },
            StoreRoute(.GET, "/events", .read) { [self] request, _, served in getEvents(request, in: served) },
        ]
    }
}
