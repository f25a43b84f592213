import Foundation
import HTTPTestSupport
import Logging
import ServiceLifecycle
import Testing

private struct VersionAnswer: Decodable {
    var version: UInt64
}

private struct ReceivedStream: Sendable {
    var index: Int
    var ids: [UInt64]
    var end: SSEStreamEnd
}

/// How a test stops the server.
enum StopPath: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// `ReMVVMServer.shutdown(timeout:)`, called by hand.
    case shutdownCall
    /// A graceful shutdown of the `ServiceGroup` running the server (what SIGTERM does).
    case serviceGroup

    var testDescription: String { rawValue }
}

/// The shutdown order: what a client was told is done reaches every subscriber before its stream ends.
@Suite struct GracefulShutdownTests {
    @Test(arguments: StopPath.allCases)
    func everyVersionAcknowledgedWith200ReachesEverySubscriberBeforeItsStreamEnds(stopPath: StopPath) throws {
        let live = try LiveServer()
        let group = ServiceGroup(services: [live.server], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let groupEnded = Mailbox<String>()
        let executor = ThreadTaskExecutor()
        defer { executor.stop() }
        if stopPath == .serviceGroup {
            // On a thread of its own: this test blocks a thread of the cooperative pool.
            Task(executorPreference: executor) {
                do {
                    try await group.run()
                    groupEnded.post("returned")
                } catch {
                    groupEnded.post("threw \(error)")
                }
            }
        }
        let subscriberCount = 8
        let writerCount = 16
        let subscribers = try (0..<subscriberCount).map { _ in HandedOver(try live.subscribe()) }
        for subscriber in subscribers {
            #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0)
        }
        // Mailboxes, not Mutex: ThreadSanitizer cannot see Synchronization.Mutex on Linux.
        let acknowledged = Mailbox<UInt64>()
        let refusals = Mailbox<Int>()
        let received = Mailbox<ReceivedStream>()
        let reached500 = Mailbox<UInt64>()
        live.store.addPublicationHandler { publication in
            if publication.version == 500 { reached500.post(publication.version) }
        }

        // Threads 0..<8 read, 8..<24 write until refused, the last one shuts down mid-load.
        let errors = runOnThreads(subscriberCount + writerCount + 1) { index in
            if index < subscriberCount {
                var ids: [UInt64] = []
                let client = subscribers[index].value
                while let event = try client.nextEvent(timeout: .seconds(20)) {
                    ids.append(event.version ?? 0)
                }
                let end = client.streamEnd ?? .aborted
                received.post(ReceivedStream(index: index, ids: ids, end: end))
            } else if index < subscriberCount + writerCount {
                let client = live.client()
                while true {
                    let response: TestHTTPResponse
                    do {
                        response = try live.post(#"{"type":"increase"}"#, client: client)
                    } catch {
                        return  // refused at connect, or closed: the server has stopped taking requests
                    }
                    guard response.status == 200 else {
                        refusals.post(response.status)
                        #expect(response.headers["Connection"]?.lowercased() == "close")
                        #expect(response.headers["Retry-After"] != nil)
                        #expect(response.headers["Content-Type"] == "application/problem+json")
                        return
                    }
                    let version = try response.decoded(VersionAnswer.self).version
                    acknowledged.post(version)
                }
            } else {
                #expect(reached500.next(timeout: .seconds(10)) == 500)
                switch stopPath {
                case .shutdownCall:
                    live.server.shutdown(timeout: .seconds(10))
                case .serviceGroup:
                    Task(executorPreference: executor) { await group.triggerGracefulShutdown() }
                    #expect(groupEnded.next(timeout: .seconds(20)) == "returned")
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")

        let acknowledgedVersions = acknowledged.snapshot
        let newest = try #require(acknowledgedVersions.max())
        #expect(acknowledgedVersions.count >= 500)
        #expect(refusals.snapshot.allSatisfy { $0 == 503 })
        for stream in received.snapshot {
            let index = stream.index
            #expect(stream.end == .clean, "subscriber \(index) ended \(stream.end)")
            #expect(stream.ids == Array(1...UInt64(stream.ids.count)), "subscriber \(index): gap or repeat")
            #expect((stream.ids.last ?? 0) >= newest, "subscriber \(index) ended at \(stream.ids.last ?? 0), acknowledged \(newest)")
        }
        #expect(received.snapshot.count == subscriberCount)
    }
}
