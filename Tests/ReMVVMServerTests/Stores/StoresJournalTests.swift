import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import SQLiteJournal
import Testing

/// Many stores in the SQLite journal (`docs/http-api.md`, "Stores"): a store unloaded (least
/// recently used or idle) is loaded again from its snapshot and records, with nothing lost.
@Suite struct StoresJournalTests {
    /// A server on a journal file in a temporary directory, in process, its idle time on a
    /// manual clock.
    final class JournalStores: Sendable {
        let directory: TemporaryDirectory
        let file: SQLiteJournalStorage
        let server: ReMVVMServer<AppState>
        let clock = ManualClock()
        private let responder: ServiceResponder

        init(maxLoaded: Int = 10_000, idleSeconds: Int = 300) throws {
            directory = try TemporaryDirectory(prefix: "remvvm-stores")
            file = try SQLiteJournalStorage(directory: directory.path, sync: .normal)
            var service = ServiceConfiguration()
            service.versionTags = .plain
            service.maxLoadedStores = maxLoaded
            service.storeIdleSeconds = idleSeconds
            server = ReMVVMServer(
                store: try Store.example(), actions: ExampleApp.actions, viewModels: ExampleApp.viewModels,
                service: service, journal: file, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            let file = file
            let clock = clock
            server.service.serveStores(StoreServing(
                catalog: file,
                storage: .journal({ id in
                    guard let view = try file.storage(for: id) else { throw JournalError(code: .unusable, message: "no store \(id)") }
                    return view
                }),
                makeStore: { try Store.example() },
                now: { clock.now }
            ))
            responder = server.service.responder()
            try server.service.start()
        }

        deinit {
            server.shutdown()
        }

        /// `target`: a path, with a query of `name=value` pairs if any.
        func send(_ method: String, _ target: String, body: String = "") -> (status: Int, body: String) {
            let headers: HTTPHeaders = body.isEmpty ? [:] : ["Content-Type": "application/json"]
            let (path, query) = splitTarget(target)
            // A write is answered once its commit is durable (when the committer took it).
            let request = Request(method: HTTPMethod(rawValue: method), path: path, query: query, headers: headers, body: Array(body.utf8))
            guard let response = responder.respond(to: request).settled() else { return (0, "no answer within 30 s") }
            return (response.status, String(decoding: response.completeBodyBytes, as: UTF8.self))
        }

        func metric(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            metricSample(send("GET", "/metrics").body, name, labels)
        }
    }

    @Test func theStoresOtherThanDefaultCommitThroughTheFilesSharedGroupCommit() throws {
        let server = try JournalStores()
        #expect(server.send("PUT", "/stores/a").status == 201)
        #expect(server.send("PUT", "/stores/b").status == 201)
        #expect(server.send("POST", "/stores/a/actions", body: #"[{"type":"increase"},{"type":"increase"}]"#).body == #"{"version":2}"#)
        #expect(server.send("POST", "/stores/b/actions", body: #"{"type":"decrease"}"#).body == #"{"version":1}"#)
        #expect(server.send("POST", "/actions", body: #"{"type":"increase"}"#).body == #"{"version":1}"#)
        let shared = server.file.commits.statistics
        #expect(shared.records == 3, "a's 2 and b's 1 went through the file's one committer; default's 1 through its own")
        #expect(shared.transactions >= 1 && shared.failures == 0)
    }

    @Test func aStoreUnloadedPastMaxLoadedIsLoadedAgainFromTheJournal() throws {
        let server = try JournalStores(maxLoaded: 2)
        #expect(server.send("PUT", "/stores/a").status == 201)
        #expect(server.send("PUT", "/stores/b").status == 201)
        #expect(server.send("POST", "/stores/a/actions", body: #"[{"type":"increase"},{"type":"increase"}]"#).body == #"{"version":2}"#)
        #expect(server.send("POST", "/stores/b/actions", body: #"{"type":"decrease"}"#).body == #"{"version":1}"#)
        #expect(server.metric("remvvm_store_unloads_total", ["reason": "over_limit"]) == 1, "a was unloaded for b")
        #expect(server.send("GET", "/stores/a").body.contains(#""version":2"#))
        #expect(server.send("GET", "/stores/a").body.contains(#""loaded":false"#))
        let state = server.send("GET", "/stores/a/state")
        #expect(state.status == 200 && state.body == #"{"counter":2,"user":null}"#)
        #expect(server.send("POST", "/stores/a/actions", body: #"{"type":"increase"}"#).body == #"{"version":3}"#)
        #expect(server.send("GET", "/stores/b/state").body == #"{"counter":-1,"user":null}"#)
        #expect(server.send("GET", "/state").body == #"{"counter":0,"user":null}"#, "default is apart")
        #expect(server.metric("remvvm_store_loads_total") == 4)
    }

    @Test func anIdleStoreIsUnloadedAndItsStateSurvives() throws {
        let server = try JournalStores(idleSeconds: 60)
        #expect(server.send("PUT", "/stores/room").status == 201)
        _ = server.send("POST", "/stores/room/actions", body: #"{"type":"increase"}"#)
        server.clock.advance(seconds: 61)
        #expect(server.server.service.unloadIdleStores() == 1)
        #expect(server.send("GET", "/stores/room").body.contains(#""loaded":false"#))
        #expect(server.send("GET", "/stores/room/state").body == #"{"counter":1,"user":null}"#)
    }

    @Test func aDeletedStoreLosesItsRecordsAndStartsAgainAtVersionZero() throws {
        let server = try JournalStores()
        #expect(server.send("PUT", "/stores/room").status == 201)
        _ = server.send("POST", "/stores/room/actions", body: #"{"type":"increase"}"#)
        #expect(server.send("DELETE", "/stores/room").status == 204)
        #expect(try server.file.describe(StoreID("room")) == nil)
        #expect(server.send("PUT", "/stores/room").status == 201)
        #expect(server.send("GET", "/stores/room/state").body == #"{"counter":0,"user":null}"#)
        #expect(server.send("POST", "/stores/room/actions", body: #"{"type":"increase"}"#).body == #"{"version":1}"#)
    }
}
