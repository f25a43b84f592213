public import AccessControl
public import Journal
public import Logging
public import MicroHTTP
public import ReMVVM
public import ReMVVMServer

extension ReMVVMServer where State == AppState {
    /// The example app served by a server of `http`'s and `service`'s settings, not started: the
    /// one way the tests (`LiveServer`, `StoresServer`, the client's `TestServer`) and the
    /// request-cost benchmark make it.
    ///
    /// - Parameters:
    ///   - store: the store served; by default ``Store/example(state:middleware:services:)``, the
    ///     example's state and reducer without middleware (``ExampleApp/store(state:services:)`` is
    ///     the store as `remvvm-server` runs it).
    ///   - logger: where the server logs; by default nowhere.
    public static func example(
        store: Store<AppState>? = nil,
        http: HTTPServerConfiguration,
        service: ServiceConfiguration = ServiceConfiguration(),
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        journal: (any JournalStorage)? = nil,
        replication: ReplicaConfiguration? = nil,
        logger: Logger = Logger(label: "example", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> ReMVVMServer<AppState> {
        ReMVVMServer(
            store: try store ?? Store.example(),
            actions: ExampleApp.actions,
            viewModels: ExampleApp.viewModels,
            http: http,
            service: service,
            accessControl: accessControl,
            journal: journal,
            replication: replication,
            logger: logger
        )
    }
}
