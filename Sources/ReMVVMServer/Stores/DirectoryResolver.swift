import ConcurrencyKit
import Journal
import MicroHTTP
import ReMVVM

/// The ``StoreResolver`` of a service that serves many stores: its ``StoreDirectory``. A request
/// holds the store it resolved until its answer is made (``serve(_:for:request:again:refusingCreation:_:)``), so that the
/// store is not unloaded or ended under it — a pending answer of a backend that needs its store
/// for it (``StoreBackend/pendingAnswersNeedTheStore``: a replica's) until it is complete.
struct DirectoryResolver<State: StoreState & Codable>: StoreResolver {
    /// The stores.
    let directory: StoreDirectory<ServedStoreLoader<State>>

    /// The store `id` names if it exists; never creates one (a write that may create goes through
    /// ``serve(_:for:request:again:refusingCreation:_:)``, which checks the request first).
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
        again replay: StoreRequestReplay,
        refusingCreation refusal: () -> Response?,
        _ respond: (ServedStore<State>) -> Response
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
        guard case .pending(let pending) = response.body, lease.store.backend.pendingAnswersNeedTheStore else {
            directory.release(lease)
            return response
        }
        // Not unloaded (nor deleted) before its answer is made: see the backend's reason.
        guard intent == .write, directory.limits.autoCreate, id != .default else {
            pending.whenCompleted { [directory] _ in directory.release(lease) }
            return response
        }
        // A write whose store is deleted under it (a replica's append waits for the deletion's
        // lock, then the log refuses it: 404) is served again, as a write that waited for a
        // deletion in the directory is: with autoCreateStores, the store is created anew.
        let answer = PendingResponse()
        pending.whenCompleted { [self] completed in
            directory.release(lease)
            // A store's tags carry its incarnation (`ServedStoreLoader`); `default` is never deleted.
            guard completed.status == 404, let incarnation = lease.store.versionTags.instance else {
                return answer.complete(completed)
            }
            // Off the thread that completed it (a replica's commit thread): the catalog is read.
            WorkerPool.blockingWork.run { [self] in
                let found: StoreDescription?
                do {
                    found = try directory.catalog.describe(id)
                } catch {
                    return answer.complete(completed)
                }
                // The store served is there: a 404 of its own (an unknown view model).
                guard found?.incarnation != incarnation else { return answer.complete(completed) }
                directory.dropIfDeleted(id, incarnation: incarnation, loaded: lease.store)
                answer.complete(forwarding: replay())
            }
        }
        var wrapped = Response(pending: answer)
        wrapped.headers = response.headers
        return wrapped
    }
}
