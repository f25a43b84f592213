import ConcurrencyKit
import Foundation
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer

/// `large-state-server [port] [items]`: serves a todo list of `items` (default 10,000) on 127.0.0.1.
@main
enum LargeStateServer {
    static func main() throws {
        let arguments = CommandLine.arguments
        let port = arguments.count > 1 ? Int(arguments[1]) ?? 8082 : 8082
        let count = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000

        var actions = ActionRegistry()
        actions.register(Toggle.self, as: "toggle")
        var viewModels = ViewModelRegistry<TodoState>()
        viewModels.register(ProgressViewModel.self, as: "progress")
        var http = HTTPServerConfiguration()
        http.port = port
        http.connectionLimit = 20_000
        var service = ServiceConfiguration()
        service.subscriberBacklogBytes = 64 << 20
        var logger = Logger(label: "large-state-server")
        logger.logLevel = .warning

        let server = ReMVVMServer(
            store: try Store(state: TodoState(count: count), reducer: ToggleReducer.self),
            actions: actions,
            viewModels: viewModels,
            http: http,
            service: service,
            logger: logger
        )
        try server.start()
        print("listening on http://127.0.0.1:\(server.port) with \(count) items")

        waitForTerminationSignal()
        server.shutdown()
    }
}
