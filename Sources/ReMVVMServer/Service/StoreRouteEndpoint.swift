import Journal
import MicroHTTP
import ReMVVM

/// One store route under `/stores/{id}`, as the router calls it: reads the store's id, then has
/// the service's resolver serve the route with that store. Its own ``StoreRequestReplay`` target:
/// a request served again goes through here once more.
final class StoreRouteEndpoint<State: StoreState & Codable>: StoreRouteServing {
    private let service: ReMVVMService<State>
    private let route: StoreRoute<State>

    init(service: ReMVVMService<State>, route: StoreRoute<State>) {
        self.service = service
        self.route = route
    }

    func respond(to request: Request, _ parameters: RouteParameters) -> Response {
        let text = parameters["store"] ?? ""
        let id: StoreID
        do throws(StoreIDError) {
            id = try StoreID(text)
        } catch {
            return Problem.invalidStoreID(text, error).response
        }
        let (check, handle) = (route.check, route.handle)
        return service.serveStore(
            id, for: route.intent, request: request,
            again: StoreRequestReplay(route: self, request: request, parameters: parameters),
            refusingCreation: { check?(request, parameters) }
        ) { served in
            handle(request, parameters, served)
        }
    }
}
