import AccessControl
import ExampleApp
import Journal
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer

extension ReMVVMServer where State == AppState {
    /// The example app served by a server of `http`'s and `service`'s settings, not started: the
    /// one way the tests make it (``LiveServer``, ``StoresServer``, the access-log tests).
    static func example(
        store: Store<AppState>? = nil,
        http: HTTPServerConfiguration,
        service: ServiceConfiguration = ServiceConfiguration(),
        accessControl: BearerAuthorizer = BearerAuthorizer(),
        journal: (any JournalStorage)? = nil,
        replication: ReplicaConfiguration? = nil,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
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
