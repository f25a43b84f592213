import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import SQLiteJournal
import Synchronization
import Testing

/// A store unloaded from the journal is freed: nothing it set up (the journal's listeners, the
/// commit gate's handlers) keeps it alive. Before, each store ever loaded stayed in memory after
/// its unload (~5.7 KB each: 30,000 stores touched with 2,000 loaded held 220 MiB).
@Suite struct UnloadedStoresAreFreedTests {
    /// A weak reference to a store the loader made.
    final class Weak: @unchecked Sendable {
        // Set once, before the store is handed to the directory, read after it unloaded.
        weak var store: Store<AppState>?
    }

    @Test func aStoreUnloadedFromTheJournalIsFreed() throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-unload")
        let file = try SQLiteJournalStorage(directory: directory.path, sync: .normal)
        var service = ServiceConfiguration()
        service.versionTags = .plain
        service.storeIdleSeconds = 60
        let server = ReMVVMServer(
            store: try Store.example(), actions: ExampleApp.actions, viewModels: ExampleApp.viewModels,
            service: service, journal: file, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        defer { server.shutdown() }
        let clock = ManualClock()
        let made = Mutex<[Weak]>([])
        server.service.serveStores(StoreServing(
            catalog: file,
            storage: .journal({ id in
                guard let view = try file.storage(for: id) else { throw JournalError(code: .unusable, message: "no store \(id)") }
                return view
            }),
            makeStore: {
                let store = try Store.example()
                let weak = Weak()
                weak.store = store
                made.withLock { $0.append(weak) }
                return store
            },
            now: { clock.now }
        ))
        let responder = server.service.responder()
        try server.service.start()
        func respond(_ method: String, _ path: String, body: String = "") -> Response {
            let headers: HTTPHeaders = body.isEmpty ? [:] : ["Content-Type": "application/json"]
            var response = responder.respond(to: Request(method: HTTPMethod(rawValue: method), path: path, headers: headers, body: Array(body.utf8)))
            if case .pending(let pending) = response.body {
                let done = Mailbox<Response>()
                pending.whenCompleted { done.post($0) }
                response = done.next(timeout: .seconds(30)) ?? response
            }
            return response
        }
        func send(_ method: String, _ path: String, body: String = "") -> Int {
            respond(method, path, body: body).status
        }
        #expect(send("PUT", "/stores/room") == 201)
        #expect(send("POST", "/stores/room/actions", body: #"{"type":"increase"}"#) == 200)
        clock.advance(seconds: 61)
        #expect(server.service.unloadIdleStores() == 1)
        #expect(made.withLock { $0.map { $0.store == nil } } == [true], "the unloaded store is released")
        // The store metrics of http-api.md ("Stores"): one load and its duration, one idle unload.
        func metricsText() -> String {
            guard case .bytes(let bytes) = respond("GET", "/metrics").body else {
                Issue.record("/metrics answered no body")
                return ""
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let metrics = metricsText()
        #expect(metricSample(metrics, "remvvm_store_loads_total") == 1)
        #expect(metricSample(metrics, "remvvm_store_load_duration_seconds_count") == 1)
        #expect(metricSample(metrics, "remvvm_store_unloads_total", ["reason": "idle"]) == 1)
        #expect(metricSample(metrics, "remvvm_store_unloads_total", ["reason": "over_limit"]) == 0)
        #expect(metricSample(metrics, "remvvm_store_load_failures_total") == 0)
        #expect(metricSample(metrics, "remvvm_stores_loaded") == 1, "default alone")
        #expect(metricSample(metrics, "remvvm_store_unloads_total", ["reason": "shutdown"]) == 0)
        // A stop unloads every store still loaded but default, counted as `shutdown`.
        #expect(send("POST", "/stores/room/actions", body: #"{"type":"increase"}"#) == 200, "loaded again")
        server.shutdown()
        let stopped = metricsText()
        #expect(metricSample(stopped, "remvvm_store_unloads_total", ["reason": "shutdown"]) == 1)
        #expect(metricSample(stopped, "remvvm_store_unloads_total", ["reason": "idle"]) == 1)
        #expect(metricSample(stopped, "remvvm_store_loads_total") == 2)
    }
}
