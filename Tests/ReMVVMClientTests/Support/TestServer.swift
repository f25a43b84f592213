import AccessControl
import ConcurrencyKit
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import MicroHTTP
import ReMVVMServer
import SQLiteJournal

/// The example app served on 127.0.0.1, for one test: durable in a temporary directory (or in
/// memory), and restartable on the same port, so that a client keeps its URL across a restart.
final class TestServer: Sendable {
    /// Where the journal lives.
    let directory: TemporaryDirectory
    /// The port, the same after every restart.
    let port: Int
    /// With a journal: versions survive restarts and tags are plain numbers.
    let durable: Bool
    private let reconnectDelay: Duration
    private let accessControl: BearerAuthorizer
    private let current: Lock<ReMVVMServer<AppState>?>

    /// Starts the server on a free port.
    init(durable: Bool = true, reconnectDelay: Duration = .milliseconds(200), accessControl: BearerAuthorizer = BearerAuthorizer()) throws {
        directory = try TemporaryDirectory(prefix: "remvvm-client")
        self.durable = durable
        self.reconnectDelay = reconnectDelay
        self.accessControl = accessControl
        let first = try Self.start(port: 0, durable: durable, directory: directory, reconnectDelay: reconnectDelay, accessControl: accessControl)
        port = first.port
        current = Lock(first)
    }

    deinit {
        stop()
    }

    /// The server's base URL.
    var url: URL {
        URL(string: "http://127.0.0.1:\(port)")!  // a literal scheme, host and number: always a URL
    }

    /// Stops the server (its streams end, its port closes).
    func stop() {
        current.withLock { server in defer { server = nil }; return server }?.shutdown(timeout: .seconds(2))
    }

    /// Starts the server again on the same port, from its journal when durable (a new, empty
    /// store with a new instance token in memory).
    func startAgain() throws {
        let server = try Self.start(port: port, durable: durable, directory: directory, reconnectDelay: reconnectDelay, accessControl: accessControl)
        current.withLock { $0 = server }
    }

    /// Stops the server and starts it again.
    func restart() throws {
        stop()
        try startAgain()
    }

    private static func start(
        port: Int,
        durable: Bool,
        directory: TemporaryDirectory,
        reconnectDelay: Duration,
        accessControl: BearerAuthorizer
    ) throws -> ReMVVMServer<AppState> {
        var http = HTTPServerConfiguration()
        http.host = "127.0.0.1"
        http.port = port
        var service = ServiceConfiguration()
        service.reconnectDelay = reconnectDelay
        if durable { service.versionTags = .plain }
        let server = try ReMVVMServer.example(
            store: try ExampleApp.store(),
            http: http,
            service: service,
            accessControl: accessControl,
            journal: durable ? try SQLiteJournalStorage(directory: directory.path, sync: .off) : nil
        )
        try server.start()
        return server
    }
}
