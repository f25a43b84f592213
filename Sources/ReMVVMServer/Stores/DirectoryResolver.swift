import Journal
import MicroHTTP
import ReMVVM

/// The ``StoreResolver`` of a service that serves many stores: its ``StoreDirectory``. A request
/// holds the store it resolved until its answer is made (``serve(_:for:request:refusingCreation:_:)``), so that the
/// store is not unloaded or ended under it — a pending answer of a backend that needs its store
/// for it (``StoreBackend/pendingAnswersNeedTheStore``: a replica's) until it is complete.
struct DirectoryResolver<State: StoreState & Codable>: StoreResolver {
    /// The stores.
    let directory: StoreDirectory<ServedStoreLoader<State>>

    /// The store `id` names if it exists; never creates one (a write that may create goes through
    /// ``serve(_:for:request:refusingCreation:_:)``, which checks the request first).
    func store(_ id: StoreID, for intent: StoreIntent, request: Request) -> Result<ServedStore<State>, Problem> {
        do {
            let lease = try directory.lease(id, creating: false)
            directory.release(lease)
            return .success(lease.store)
        } catch {
            return .failure(.store(error))
        }
    }

    func serve(
        _ id: StoreID, for intent: StoreIntent, request: Request,
        refusingCreation refusal: () -> Response?, _ respond: (ServedStore<State>) -> Response
    ) -> Response {
        let lease: StoreLease<ServedStore<State>>
        do {
            lease = try directory.lease(id, creating: false)
        } catch {
            // A write may create a missing store (autoCreateStores), but only a request that
            // would not be refused: a bad body must not make a store (nor count towards maxStores).
            guard case .notFound = error, intent == .write, directory.limits.autoCreate else {
                return Problem.store(error).response
            }
            if let refused = refusal() { return refused }
            // `If-Match` holds for a version of a store that exists, `*` for any; a store not
            // there has none (RFC 9110 §13.1.1): 412, and nothing is created.
            if request.headers[.ifMatch] != nil { return Problem.noStoreToMatch(id).response }
            do {
                lease = try directory.lease(id, creating: true)
            } catch {
                return Problem.store(error).response
            }
        }
        let response = respond(lease.store)
        if case .pending(let pending) = response.body, lease.store.backend.pendingAnswersNeedTheStore {
            // Not unloaded (nor deleted) before its answer is made: see the backend's reason.
            pending.whenCompleted { [directory] _ in directory.release(lease) }
        } else {
            directory.release(lease)
        }
        return response
    }
}
