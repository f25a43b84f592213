import Journal
import MicroHTTP
import ReMVVM

/// The ``StoreResolver`` of a service that serves many stores: its ``StoreDirectory``. A request
/// holds the store it resolved until its answer is made (``serve(_:for:request:_:)``), so that the
/// store is not unloaded or ended under it.
struct DirectoryResolver<State: StoreState & Codable>: StoreResolver {
    /// The stores.
    let directory: StoreDirectory<ServedStoreLoader<State>>

    func store(_ id: StoreID, for intent: StoreIntent, request: Request) -> Result<ServedStore<State>, Problem> {
        do {
            let lease = try directory.lease(id, creating: intent == .write)
            directory.release(lease)
            return .success(lease.store)
        } catch {
            return .failure(.store(error))
        }
    }

    func serve(
        _ id: StoreID, for intent: StoreIntent, request: Request, _ respond: (ServedStore<State>) -> Response
    ) -> Response {
        let lease: StoreLease<ServedStore<State>>
        do {
            lease = try directory.lease(id, creating: intent == .write)
        } catch {
            return Problem.store(error).response
        }
        defer { directory.release(lease) }
        return respond(lease.store)
    }
}
