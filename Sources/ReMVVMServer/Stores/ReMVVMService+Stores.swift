import AccessControl
import ConcurrencyKit
public import Journal
import MicroHTTP
public import ReMVVM

/// Where the stores of a service other than `default` keep their versions.
public enum StoreStorage: Sendable {
    /// In memory, like a service without a journal: nothing survives the process, and no store is
    /// ever unloaded (it would have nothing to be loaded again from).
    case memory
    /// Each in the journal `open` gives for its id (a view of the service's one database); a
    /// store idle or least recently used is unloaded after its snapshot is written.
    case journal(@Sendable (StoreID) throws -> any JournalStorage)
    /// Each a replica of its store in the shared log of a service that is a replica (made with a
    /// ``ReplicaConfiguration``; the catalog is then the log's): loaded from its local snapshot
    /// and the log after it, following the log while loaded, unloaded (its snapshot written and
    /// registered, the log no longer followed for it) when idle or least recently used.
    case replica(ReplicaStores)
}

/// What a service needs to serve stores besides `default` (`docs/http-api.md`, "Stores").
public struct StoreServing<State: StoreState & Codable>: Sendable {
    /// Which stores exist; it holds `default`.
    public var catalog: any StoreCatalog
    /// Where the stores keep their versions.
    public var storage: StoreStorage
    /// A store of the domain at its initial state, with its middleware: one per store.
    public var makeStore: @Sendable () throws -> Store<State>
    /// The clock of creation and idle times, in milliseconds since 1970.
    public var now: @Sendable () -> Int64

    /// Describes how to serve stores.
    public init(
        catalog: any StoreCatalog,
        storage: StoreStorage,
        makeStore: @escaping @Sendable () throws -> Store<State>,
        now: @escaping @Sendable () -> Int64 = MemoryStoreCatalog.now
    ) {
        self.catalog = catalog
        self.storage = storage
        self.makeStore = makeStore
        self.now = now
    }
}

extension ReMVVMService {
    /// Serves every store of `serving`'s catalog under `/stores/{id}/…`, with the management
    /// routes `PUT`, `GET`, `DELETE /stores/{id}` and `GET /stores`, under the limits of the
    /// configuration (`autoCreateStores`, `maxStores`, `maxLoadedStores`, `storeIdleSeconds`).
    /// Call it before ``responder()``; false (and ignored) when called before.
    @discardableResult
    public func serveStores(_ serving: StoreServing<State>) -> Bool {
        let catalog = serving.catalog
        let activities = (catalog as? MemoryStoreCatalog).map { ActivityRecording(catalog: $0, now: serving.now) }
        let watch = DeletionWatch<State>()
        let loader = ServedStoreLoader(
            environment: environment, storage: serving.storage, makeStore: serving.makeStore, activities: activities,
            replication: (root.backend as? ReplicaBackend<State>)?.replication, followingStopped: watch
        )
        let directory = StoreDirectory(
            defaultStore: root,
            catalog: catalog,
            loader: loader,
            limits: StoreLimits(configuration),
            metrics: metrics.map(StoreMetrics.init),
            now: serving.now
        )
        guard serveStores(with: DirectoryResolver(directory: directory)) else { return false }
        watch.watch(directory)
        activities?.record(root.publisher, of: .default)
        return true
    }

    /// How the loaded stores are doing together, when ``serveStores(_:)`` set them up.
    var storesHealth: StoresHealth? {
        storeDirectory.map { StoresHealth(of: $0.loadedStores, unloadable: $0.unloadableStores) }
    }

    /// The stores, when ``serveStores(_:)`` set them up.
    var storeDirectory: StoreDirectory<ServedStoreLoader<State>>? {
        (storeResolver as? DirectoryResolver<State>)?.directory
    }

    /// `PUT`, `GET`, `DELETE /stores/{id}` and `GET /stores`; a service that serves `default`
    /// alone (no ``serveStores(_:)``) answers them `404`.
    func addStoreManagementRoutes(to router: inout Router) {
        func managed(_ respond: @escaping @Sendable (StoreDirectory<ServedStoreLoader<State>>, Request, String) -> Response) -> Router.Handler {
            { [self] request, parameters in
                guard let directory = storeDirectory else { return Problem.notFound(path: request.path).response }
                return respond(directory, request, parameters["store"] ?? "")
            }
        }
        router.add(.GET, "/stores", managed { [self] directory, request, _ in
            directory.respondToList(request, isVisible: storesInReach(of: request))
        })
        router.add(.PUT, "/stores/:store", managed { directory, request, id in directory.respondToPut(request, id: id) })
        router.add(.GET, "/stores/:store", managed { directory, _, id in directory.respondToGet(id: id) })
        router.add(.DELETE, "/stores/:store", managed { directory, _, id in directory.respondToDelete(id: id) })
    }

    /// Whether the caller's token reaches a store: the listing shows only those. The gate let the
    /// request through (`manage`, a token that authenticates), so a failure here does not happen
    /// behind it; without the gate in front, it shows nothing. Every store without tokens.
    private func storesInReach(of request: Request) -> (StoreID) -> Bool {
        switch accessControl.authorization(credential: request.headers[.authorization]) {
        case .success(let granted): { granted.reaches(storeID: $0.rawValue) }
        case .failure: { _ in false }
        }
    }

    /// Unloads the stores idle for `storeIdleSeconds`, every ``StoreDirectory/sweepInterval``,
    /// until the task is cancelled; returns at once when nothing unloads when idle.
    func sweepIdleStores() async {
        guard let directory = storeDirectory, let interval = directory.sweepInterval else { return }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            _ = await runOnOwnThread { directory.unloadIdleStores() }
        }
    }
}

extension ReMVVMService {
    /// Unloads the stores idle now (``StoreDirectory/unloadIdleStores()``) without waiting for
    /// the next sweep; returns how many.
    @discardableResult
    public func unloadIdleStores() -> Int {
        storeDirectory?.unloadIdleStores() ?? 0
    }
}
