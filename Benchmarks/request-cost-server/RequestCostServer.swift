import AccessControl
import ConcurrencyKit
import ExampleApp
import Foundation
import Journal
import Logging
import MicroHTTP
import ReMVVMServer
import SQLiteJournal

/// `request-cost-server PORT [--data-dir DIR] [--no-metrics]`: the example store served as
/// `remvvm-server` serves it (every default feature on), in memory or with the SQLite journal at
/// `journalSync` full, with its stores under `/stores/{id}/…` (those of the journal's file, or in memory); a static token from `REMVVM_AUTH_TOKENS` when set; `--no-metrics` turns
/// metrics off (to see what they cost).
///
/// It exists for `Benchmarks/request-cost.sh`, which counts the instructions of each request under
/// valgrind: valgrind 3.19 cannot run `remvvm-server` itself (its asynchronous `main` parks the
/// main thread in libdispatch, where valgrind faults), and this `main` is synchronous.
@main
enum RequestCostServer {
    static func main() throws {
        var arguments = CommandLine.arguments.dropFirst()
        guard let port = arguments.popFirst().flatMap({ Int($0) }) else { usage() }
        var http = HTTPServerConfiguration()
        http.port = port
        var service = ServiceConfiguration()
        var journal: SQLiteJournalStorage?
        while let argument = arguments.popFirst() {
            switch argument {
            case "--data-dir":
                guard let directory = arguments.popFirst() else { usage() }
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                journal = try SQLiteJournalStorage(directory: directory, sync: .full)
                service.versionTags = .plain
            case "--no-metrics":
                service.metricsEnabled = false
            default:
                usage()
            }
        }
        var accessControl = BearerAuthorizer()
        if let tokens = ProcessInfo.processInfo.environment["REMVVM_AUTH_TOKENS"] {
            accessControl = BearerAuthorizer(staticTokens: try StaticTokens(environment: tokens))
        }
        var logger = Logger(label: "request-cost-server")
        logger.logLevel = .warning
        let server = try ReMVVMServer.example(
            store: try ExampleApp.store(),
            http: http,
            service: service,
            accessControl: accessControl,
            journal: journal,
            logger: logger
        )
        // Every store under /stores/{id}/… as remvvm-server serves them: with the journal, those of
        // its file (request-cost.sh's post-durable-store and post-durable-1000); without, in memory
        // (post-store, state-store).
        if let file = journal {
            server.service.serveStores(StoreServing(catalog: file, storage: .journal({ id in
                guard let view = try file.storage(for: id) else {
                    throw JournalError(code: .unusable, message: "the store \(id) is not in \(file.path)")
                }
                return view
            }), makeStore: { try ExampleApp.store() }))
        } else {
            server.service.serveStores(StoreServing(catalog: MemoryStoreCatalog(), storage: .memory, makeStore: { try ExampleApp.store() }))
        }
        try server.start()
        waitForTerminationSignal()
        server.shutdown()
    }

    private static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: request-cost-server PORT [--data-dir DIR] [--no-metrics]\n".utf8))
        exit(64)
    }
}
