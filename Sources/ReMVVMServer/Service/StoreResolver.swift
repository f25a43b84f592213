import Journal
import MicroHTTP
import ReMVVM

/// What a request to a store's route is about to do: a read never creates a store, a write
/// may (with `autoCreateStores`).
enum StoreIntent: Sendable {
    /// `GET` of the state, view models, events or the action log.
    case read
    /// `POST` of actions or of a command.
    case write
}

/// Serves a request again from its `/stores/{id}/…` route, as the route first received it: a
/// replica's write whose store was deleted while it waited for the log, with `autoCreateStores`
/// (the store is created anew, as on a single server). Values the route holds anyway — its
/// handler, the request, its parameters — so that handing it to every store request costs no
/// allocation; only a write that is served again keeps it.
struct StoreRequestReplay: Sendable {
    /// Serves a store route's request (the route's own handler).
    let route: any StoreRouteServing
    /// The request, as received.
    let request: Request
    /// Its route's parameters.
    let parameters: RouteParameters

    /// The route's answer to the request, served anew.
    func callAsFunction() -> Response {
        route.respond(to: request, parameters)
    }
}

/// A `/stores/{id}/…` route's handler (``StoreRequestReplay``).
protocol StoreRouteServing: AnyObject, Sendable {
    /// The route's answer to `request`.
    func respond(to request: Request, _ parameters: RouteParameters) -> Response
}

/// Finds the store a `/stores/{id}/…` route serves. The service asks it once per such request;
/// the root routes do not ask (they serve the store `default`, held directly).
protocol StoreResolver<State>: Sendable {
    /// The state of the stores it finds.
    associatedtype State: StoreState & Codable

    /// The store `id` names, for `request` (whose credential may reach only some stores), or the
    /// problem to answer instead: `404 urn:remvvm:problem:store-not-found` for a store that does
    /// not exist (or that the caller may not know of).
    func store(_ id: StoreID, for intent: StoreIntent, request: Request) -> Result<ServedStore<State>, Problem>

    /// `respond`'s answer with the store `id` names, or the problem; the store stays held (not
    /// unloaded or ended) until `respond` returns. A write that would create the store
    /// (`autoCreateStores`) asks `refusal` first — the request's own checks, which need no store —
    /// and answers what it returns instead: a request that would be refused creates nothing. A
    /// store that exists is served without asking. `replay` serves the request again from its
    /// route (a replica's write whose store was deleted under it). By default
    /// ``store(_:for:request:)``.
    func serve(
        _ id: StoreID, for intent: StoreIntent, request: Request,
        again replay: StoreRequestReplay,
        refusingCreation refusal: () -> Response?,
        _ respond: (ServedStore<State>) -> Response
    ) -> Response
}

extension StoreResolver {
    func serve(
        _ id: StoreID, for intent: StoreIntent, request: Request,
        again replay: StoreRequestReplay,
        refusingCreation refusal: () -> Response?,
        _ respond: (ServedStore<State>) -> Response
    ) -> Response {
        switch store(id, for: intent, request: request) {
        case .success(let served): respond(served)
        case .failure(let problem): problem.response
        }
    }
}

/// The resolver of a service that serves one store: `default` is it, every other id is `404`.
struct DefaultStoreOnly<State: StoreState & Codable>: StoreResolver {
    /// The store `default`.
    let root: ServedStore<State>

    func store(_ id: StoreID, for intent: StoreIntent, request: Request) -> Result<ServedStore<State>, Problem> {
        id == .default ? .success(root) : .failure(.storeNotFound(id))
    }
}
