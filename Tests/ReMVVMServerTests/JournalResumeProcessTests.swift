import Foundation
import HTTPTestSupport
import Testing

/// A browser that reconnects to a restarted `remvvm-server` with the `Last-Event-ID` it had gets
/// every version after it from the journal, not a reset (docs/http-api.md, "Resuming event streams").
@Suite struct JournalResumeProcessTests {
    private func post(_ json: String, port: Int) throws -> TestHTTPResponse {
        try TestHTTPClient(port: port).send(
            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: Array(json.utf8)
        )
    }

    private func resume(port: Int, lastEventId: String) throws -> SSEClient {
        try SSEClient(port: port, path: "/events", headers: [("Accept", "text/event-stream"), ("Last-Event-ID", lastEventId)])
    }

    @Test(arguments: [SIGKILL, SIGTERM])
    func aStreamResumesFromTheJournalAfterARestart(signal: Int32) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-resume-restart")
        var sentLive: [SSEEvent] = []
        do {
            let server = try ServerProcess(arguments: ["--snapshot-every", "10"], dataDirectory: directory.path)
            let watcher = try SSEClient(port: server.port, path: "/events")
            #expect(try watcher.nextEvent(timeout: .seconds(5))?.version == 0)
            for version in 1...30 {
                #expect(try post(JournalResumeTests.action(version), port: server.port).status == 200)
            }
            sentLive = try JournalResumeTests.events(from: watcher, through: 30)
            let exit = try #require(server.stop(with: signal, timeout: 10), "\(server.standardError)")
            if signal == SIGTERM {
                #expect(exit.status == 0, "\(server.standardError)")
            }
        }
        let restarted = try ServerProcess(dataDirectory: directory.path)
        let resumed = try [0, 7, 15, 29].map { after in (after, try resume(port: restarted.port, lastEventId: String(after))) }
        for (after, client) in resumed {
            #expect(client.headers["ReMVVM-Replay"] == nil, "after \(after): served, not reset")
            #expect(try JournalResumeTests.events(from: client, through: 30) == Array(sentLive[after...]),
                    "after \(after): every later version, as sent before the restart")
        }
        let current = try resume(port: restarted.port, lastEventId: "30")
        #expect(current.headers["ReMVVM-Replay"] == nil, "the current version: nothing to replay")
        #expect(try post(JournalResumeTests.action(31), port: restarted.port).status == 200)
        for (after, client) in resumed + [(30, current)] {
            #expect(try client.nextEvent(timeout: .seconds(5))?.version == 31, "after \(after): then live")
        }
        // Not versions of this store: still a reset.
        for id in ["32", "7-3f9a2c1b", "banana"] {
            let client = try resume(port: restarted.port, lastEventId: id)
            #expect(client.headers["ReMVVM-Replay"] == "reset", "\(id)")
            #expect(try client.nextEvent(timeout: .seconds(5))?.version == 31)
        }
    }
}
