import Foundation
import HTTPTestSupport
import Testing

/// Graceful shutdown of the real `remvvm-server` executable.
@Suite struct ShutdownTests {
    @Test func sigtermWithAHundredOpenEventStreamsExitsZeroWithinFiveSecondsEndingEveryStream() throws {
        let server = try ServerProcess()
        var streams: [SSEClient] = []
        for _ in 0..<100 {
            let stream = try SSEClient(port: server.port, path: "/events")
            #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 0)
            streams.append(stream)
        }
        let client = TestHTTPClient(port: server.port)
        #expect(try client.send(method: "POST", path: "/actions", headers: [("Content-Type", "application/json")],
                                body: Array(#"{"type":"increase"}"#.utf8)).status == 200)

        let exit = try #require(server.stop(with: SIGTERM, timeout: 5), "exited within 5 s: \(server.standardError)")
        #expect(exit.status == 0, "\(server.standardError)")
        for stream in streams {
            #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 1, "queued events are delivered first")
            #expect(try stream.waitForEnd(timeout: .seconds(5)) == .clean, "each stream ends with the chunked terminator")
        }
    }

    @Test func sigintAlsoStopsCleanly() throws {
        let server = try ServerProcess()
        let exit = try #require(server.stop(with: SIGINT, timeout: 5), "exited within 5 s: \(server.standardError)")
        #expect(exit.status == 0, "\(server.standardError)")
    }

    @Test func invalidSettingIsAClearStartupError() throws {
        #expect {
            _ = try ServerProcess(environment: ["REMVVM_WORKER_THREADS": "lots"])
        } throws: { error in
            "\(error)".contains("workerThreads")
        }
    }
}
