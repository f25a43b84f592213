import ExampleApp
import Foundation
import HTTPTestSupport
import ReMVVM
import ReMVVMServer
import Testing

/// A store's hubs (`/events`, view-model streams) run on lanes of the shared worker pool: a
/// started service of an idle store holds no thread of its own (issue 35: 10,000 loaded stores).
@Suite struct IdleHubTests {
    @Test func startedServicesOfIdleStoresAddFarFewerThreadsThanStores() throws {
        let stores = 200
        let before = threadCount()
        var services: [ReMVVMService<AppState>] = []
        for _ in 0..<stores {
            let service = ReMVVMService(store: try Store.example(), actions: ExampleApp.actions, viewModels: ExampleApp.viewModels)
            try service.start()
            services.append(service)
        }
        let added = threadCount() - before
        for service in services {
            service.stop()
        }
        // A thread per hub made it 600 and more (3 per store on two cores); the pools' threads
        // are a handful, and other tests running meanwhile add a few.
        #expect(added < stores / 4, "\(added) threads more for \(stores) started services")
    }

    @Test func aServiceOfManyStoresStillDeliversEveryVersionToEachStream() throws {
        let servers = try (0..<8).map { _ in try LiveServer() }
        let streams = try servers.map { try $0.subscribe() }
        for (server, stream) in zip(servers, streams) {
            #expect(server.server.service.waitForSubscribers(timeout: .seconds(10)) { $0 == 1 })
            _ = try stream.nextEvent(timeout: .seconds(10))  // the current state
        }
        for round in 1...5 {
            for server in servers {
                #expect(try server.post(#"{"type":"increase"}"#).status == 200)
            }
            for stream in streams {
                let event = try #require(try stream.nextEvent(timeout: .seconds(10)))
                #expect(event.data.contains(#""state":{"counter":\#(round),"#), "\(event.data)")
            }
        }
    }
}

/// The threads of this process now (`/proc/self/task`).
private func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}
