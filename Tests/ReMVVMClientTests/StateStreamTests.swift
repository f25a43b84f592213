import ConcurrencyKit
import ExampleApp
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReMVVMClient
import Testing

/// The state as an `AsyncSequence`: every version once, in order, across disconnects, restarts
/// and resets.
@Suite struct StateStreamTests {
    @Test(arguments: [true, false])
    func aStateStreamResumesAcrossAServerRestartWithNoVersionMissedOrRepeated(deltas: Bool) async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        try await client.dispatch(Login(firstName: "Ada", lastName: "Lovelace"))
        let updates = Collector(client.states(as: AppState.self, deltas: deltas))
        try await updates.wait(for: 1)
        for _ in 1...10 { try await client.dispatch(Increase()) }
        try await updates.wait { $0.last?.version == 11 }
        try server.restart()
        for _ in 1...10 { try await client.dispatch(Decrease()) }
        let seen = try await updates.wait { $0.last?.version == 21 }
        #expect(seen.map(\.version) == Array(1...21))
        #expect(seen.map(\.state.counter) == Array(0...10) + Array((0...9).reversed()))
        #expect(seen.allSatisfy { !$0.isReset })
        #expect(seen.last?.state == (try await client.state(as: AppState.self).state))
    }

    /// `after:` a version the caller holds (read with `state(as:)`, say): every later version
    /// once, in order — at the newest version a delta stream's patches apply to a state the
    /// stream never sent, and after an older one it starts with the current state, so the client
    /// reads what it lacks from a plain stream (docs/swift-client.md).
    @Test(arguments: [true, false])
    func aStreamAfterAVersionTheCallerHoldsHandsOutEveryLaterVersionOnce(deltas: Bool) async throws {
        let server = try TestServer()
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        for _ in 1...3 { try await client.dispatch(Increase()) }
        let held = try await client.state(as: AppState.self)
        #expect(held.tag.version == 3 && held.state.counter == 3)
        let atNewest = Collector(client.states(as: AppState.self, deltas: deltas, after: held.tag))
        // Dispatched once the stream is open, so that version 4 comes to it live (a patch, with
        // deltas), not in its resume.
        #expect(try await Self.eventStreams(of: server) == 1)
        for _ in 1...2 { try await client.dispatch(Increase()) }
        let next = try await atNewest.wait { $0.last?.version == 5 }
        #expect(next.map(\.version) == [4, 5])
        #expect(next.map(\.state.counter) == [4, 5])
        let older = VersionTag("1" + held.tag.text.drop(while: \.isNumber))
        let sinceOlder = Collector(client.states(as: AppState.self, deltas: deltas, after: older))
        let replayed = try await sinceOlder.wait { $0.last?.version == 5 }
        #expect(replayed.map(\.version) == [2, 3, 4, 5])
        #expect(replayed.map(\.state.counter) == [2, 3, 4, 5])
        #expect(replayed.allSatisfy { !$0.isReset })
    }

    /// The open `GET /events` streams `/stats` counts, once there are any (10 s at most).
    static func eventStreams(of server: TestServer) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let (body, _) = try await URLSession.shared.data(from: server.url.appendingPathComponent("stats"))
            let stats = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            let streams = (stats?["subscribers"] as? [String: Any])?["events"] as? Int ?? 0
            if streams > 0 || ContinuousClock.now > deadline { return streams }
            try await Task.sleep(for: .milliseconds(10))  // polling /stats, not a wait for an outcome
        }
    }

    @Test func versionsMadeWhileTheStreamIsDisconnectedAreDeliveredOnResume() async throws {
        let server = try TestServer(reconnectDelay: .milliseconds(300))
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let events = Collector(client.stateEvents())
        try await events.wait(for: 1)
        server.stop()
        try server.startAgain()
        for _ in 1...5 { try await client.dispatch(Increase()) }  // likely before the stream is back
        let seen = try await events.wait { $0.last?.version == 5 }
        #expect(seen.map(\.version) == Array(0...5))
    }

    @Test func anInMemoryServerThatRestartedSendsAResetThatReplacesTheState() async throws {
        let server = try TestServer(durable: false)
        let client = ReMVVMClient(baseURL: server.url, actions: exampleActions, retry: quickRetries)
        let updates = Collector(client.states(as: AppState.self))
        try await updates.wait(for: 1)
        for _ in 1...3 { try await client.dispatch(Increase()) }
        try await updates.wait { $0.last?.version == 3 }
        try server.restart()  // a new store: version 0, another instance token
        let reset = try await updates.wait { $0.contains(where: \.isReset) }
        #expect(reset.last?.isReset == true)
        #expect(reset.last?.version == 0 && reset.last?.state == AppState())
        try await client.dispatch(Increase())
        let after = try await updates.wait { $0.last?.version == 1 && $0.last?.isReset == false }
        #expect(after.map(\.version) == [0, 1, 2, 3, 0, 1])
        #expect(after.last?.state.counter == 1)
    }

    @Test func theStreamWaitsForTheServersRetryDelayBeforeReconnecting() async throws {
        let server = try TestServer(reconnectDelay: .milliseconds(1500))  // the default is 1 s
        let log = TimedLog()
        let hooks = InterceptingTransport.Hooks(beforeSending: { if $0.url.path == "/events" { log.note() } })
        let client = ReMVVMClient(baseURL: server.url, transport: InterceptingTransport(base: URLSessionTransport(), hooks: hooks), retry: quickRetries)
        let events = Collector(client.stateEvents())
        try await events.wait(for: 1)
        let stopping = ContinuousClock.now  // the stream ends once the server has begun to stop
        try server.restart()
        try await client.dispatch(json: Array(#"{"type":"increase"}"#.utf8))
        try await events.wait { $0.last?.version == 1 }
        let reconnect = try #require(log.times.first { $0 > stopping })
        #expect(reconnect - stopping >= .milliseconds(1500), "reconnected after retry:, not sooner")
    }

    @Test func anUnauthorizedStreamEndsWithTheServersAnswer() async throws {
        let server = try TestServer(accessControl: try testAuthorizer())
        let client = ReMVVMClient(baseURL: server.url, token: "wrong", retry: quickRetries)
        let events = Collector(client.stateEvents())
        await #expect(throws: TimedOut.self) { try await events.wait(for: 1, within: .seconds(10)) }
        #expect(events.failure?.contains("401") == true)
    }
}

/// When something happened, on the monotonic clock.
final class TimedLog: Sendable {
    private let instants = Lock<[ContinuousClock.Instant]>([])

    func note() {
        instants.withLock { $0.append(.now) }
    }

    var times: [ContinuousClock.Instant] {
        instants.withLock { $0 }
    }
}
