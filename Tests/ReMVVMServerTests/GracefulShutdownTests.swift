import Foundation
import HTTPTestSupport
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
    /// `ReMVVMServer.shutdown(timeout:)`, called by hand in this process.
    case shutdownCall
    /// SIGTERM to the `remvvm-server` executable: its `ServiceGroup`'s graceful shutdown. In a
    /// process of its own, because swift-service-lifecycle finishes a graceful shutdown on Swift's
    /// cooperative pool, which this test process's blocking tests keep busy.
    case sigterm

    var testDescription: String { rawValue }
}

/// A server to stop: the example app in process, or the executable.
private final class ServerUnderTest: Sendable {
    private let live: LiveServer?
    private let process: HandedOver<ServerProcess>?
    let port: Int

    init(_ path: StopPath) throws {
        switch path {
        case .shutdownCall:
            let live = try LiveServer()
            self.live = live
            process = nil
            port = live.port
        case .sigterm:
            let process = try ServerProcess()
            self.process = HandedOver(process)
            live = nil
            port = process.port
        }
    }

    func stop() -> String? {
        if let live {
            live.server.shutdown(timeout: .seconds(10))
            return nil
        }
        guard let process = process?.value else { return nil }
        guard let exit = process.stop(with: SIGTERM, timeout: 15) else { return "still running 15 s after SIGTERM" }
        return exit.status == 0 ? nil : "exit status \(exit.status): \(process.standardError)"
    }
}

/// The shutdown order: what a client was told is done reaches every subscriber before its stream ends.
@Suite struct GracefulShutdownTests {
    @Test(arguments: StopPath.allCases)
    func everyVersionAcknowledgedWith200ReachesEverySubscriberBeforeItsStreamEnds(stopPath: StopPath) throws {
        let server = try ServerUnderTest(stopPath)
        let subscriberCount = 8
        let writerCount = 16
        let subscribers = try (0..<subscriberCount).map { _ in
            HandedOver(try SSEClient(port: server.port, path: "/events"))
        }
        for subscriber in subscribers {
            #expect(try subscriber.value.nextEvent(timeout: .seconds(5))?.version == 0)
        }
        // Mailboxes, not Mutex: ThreadSanitizer cannot see Synchronization.Mutex on Linux.
        let acknowledged = Mailbox<UInt64>()
        let acknowledgements = Mailbox<UInt64>()  // taken by the thread that stops the server
        let refusals = Mailbox<Int>()
        let received = Mailbox<ReceivedStream>()

        // Threads 0..<8 read, 8..<24 write until refused, the last one stops the server mid-load.
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
                let client = TestHTTPClient(port: server.port)
                while true {
                    let response: TestHTTPResponse
                    do {
                        response = try client.send(
                            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")],
                            body: Array(#"{"type":"increase"}"#.utf8)
                        )
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
                    acknowledgements.post(version)
                }
            } else {
                #expect(acknowledgements.next(500, timeout: .seconds(20)).count == 500)
                if let failure = server.stop() {
                    Issue.record("the server did not stop cleanly: \(failure)")
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
