import ConcurrencyKit
import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import ReMVVM
@testable import ReMVVMServer
import Testing

/// An event hub with a journal behind it takes no publication while nobody listens
/// (`EventHub+Demand.swift`), and catches up from the store's newest durable state when it is next
/// looked at: a new stream, a resume and its `HEAD`, the statistics. Without a journal it takes
/// every one (its ring is the only history): `EventStatisticsTests`.
@Suite struct EventDemandTests {
    private func resume(_ live: LiveServer, after version: UInt64) throws -> SSEClient {
        try SSEClient(
            port: live.port,
            path: "/events",
            headers: [("Accept", "text/event-stream"), ("Last-Event-ID", live.versionTags.tag(version))]
        )
    }

    private func post(_ count: Int, to live: LiveServer) throws {
        for _ in 0..<count {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
    }

    @Test func aDurableHubNobodyFollowsTakesNoPublicationThenCatchesUpAndCountsThemSetAside() throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .zero)
        let hub = live.server.service.root.hub
        try post(5, to: live)
        #expect(!hub.demand.isWanted)
        #expect(hub.inbox.withLock { ($0.newestVersion, $0.history.count) } == (0, 0), "no version reached the hub")

        let statistics = live.server.service.eventStatistics
        #expect(statistics.versionsSetAside == 5)
        #expect(statistics.versions == 5)
        #expect(hub.inbox.withLock { ($0.newestVersion, $0.history.map(\.version)) } == (5, [5]), "caught up: the ring starts again at the newest")
        #expect(!hub.demand.isWanted, "looking does not make a listener")

        let stream = try live.subscribe()
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 5, "the first event is the newest state")
        #expect(hub.demand.isWanted)
        try post(2, to: live)
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 6)
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 7)
        stream.close()
        #expect(hub.waitForSubscribers(timeout: .seconds(5)) { $0 == 0 })
        // The lane stops wanting publications once it has seen the stream leave.
        #expect(waitUntil(timeout: .seconds(5)) { !hub.demand.isWanted })
        try post(3, to: live)
        #expect(hub.inbox.withLock { $0.newestVersion } == 7, "skipped again")
        #expect(live.server.service.eventStatistics.versionsSetAside == 8, "5 before the stream, 3 after")
    }

    /// From the journal (3: before the ring), from the ring of one the hub caught up to (7: the
    /// version before the newest), at the newest (8): every later version once, in order, no
    /// reset, then live.
    @Test(arguments: [UInt64(3), 7, 8])
    func aStreamResumingAfterSkippedVersionsGetsEveryLaterOneThenGoesLive(after: UInt64) throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .zero)
        try post(8, to: live)
        let head = try live.send(method: "HEAD", path: "/events", headers: [("Last-Event-ID", live.versionTags.tag(after))])
        #expect(head.status == 200 && head.headers["ReMVVM-Replay"] == nil, "HEAD: no reset")

        let client = try resume(live, after: after)
        #expect(client.headers["ReMVVM-Replay"] == nil, "served, not reset")
        var versions: [UInt64] = []
        while versions.count < 8 - after {
            versions.append(try #require(try client.nextEvent(timeout: .seconds(5))?.version))
        }
        #expect(versions == Array(after + 1..<9))
        try post(1, to: live)
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 9)
    }

    @Test func aResumeAfterAVersionTheStoreHasNotReachedIsAResetAfterSkippedVersions() throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .zero)
        try post(4, to: live)
        let future = [("Last-Event-ID", live.versionTags.tag(5))]
        #expect(try live.send(method: "HEAD", path: "/events", headers: future).headers["ReMVVM-Replay"] == "reset")
        let client = try resume(live, after: 5)
        #expect(client.headers["ReMVVM-Replay"] == "reset")
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 4, "the newest state, marked reset")
        // The newest is version 4, not older: an id for 4 resumes at the newest.
        let atNewest = [("Last-Event-ID", live.versionTags.tag(4))]
        #expect(try live.send(method: "HEAD", path: "/events", headers: atNewest).headers["ReMVVM-Replay"] == nil)
    }

    /// Streams come and go (each resuming after the last version the previous one got) while a
    /// writer posts: the hub switches between skipping and taking publications with versions in
    /// flight on the commit thread, and no stream sees a gap or a repeat — with the demand unset
    /// as the last stream leaves, and after a grace that streams come back in or outlast.
    @Test(arguments: [Duration.zero, .milliseconds(2)])
    func streamsComingAndGoingWhileAWriterPostsSeeEveryVersionOnceInOrder(grace: Duration) throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: grace)
        let total: UInt64 = 1_000
        // The writer's count of acknowledged posts, whether it has finished, and why it stopped
        // early (nil: it did not).
        let writing = Lock<(acknowledged: UInt64, finished: Bool, failure: String?)>((0, false, nil))
        let writer = Thread {
            var failure: String?
            for _ in 0..<total {
                do {
                    let status = try live.post(#"{"type":"increase"}"#).status
                    guard status == 200 else {
                        failure = "answered \(status)"
                        break
                    }
                    writing.withLock { $0.acknowledged += 1 }
                } catch {
                    failure = "\(error)"
                    break
                }
            }
            writing.withLock {
                $0.finished = true
                $0.failure = failure
            }
            writing.notifyAll()
        }
        writer.start()
        var seen: [UInt64] = []
        for _ in 0..<5_000 where seen.last != total {
            let client = try seen.last.map { try resume(live, after: $0) } ?? live.subscribe()
            #expect(client.headers["ReMVVM-Replay"] == nil)
            // A few events, then the stream leaves (the hub goes idle again when it was the last).
            for _ in 0..<Int.random(in: 1...4) {
                guard let version = try client.nextEvent(timeout: .seconds(10))?.version else { break }
                // A fresh subscription starts anywhere; every event after follows the one before.
                #expect(seen.last.map { version == $0 + 1 } ?? true, "no gap, no repeat: \(version) after \(seen.last ?? 0)")
                seen.append(version)
                if version == total { break }
            }
            client.close()
        }
        // The stream can see the last version before the writer has read its answer: wait for it.
        let (acknowledged, finished, failure) = writing.withLock(waitingUntil: { $0.finished }, timeout: .seconds(30)) { state, _ in
            (state.acknowledged, state.finished, state.failure)
        }
        #expect(finished && failure == nil, "the writer stopped: \(failure ?? "still running")")
        #expect(acknowledged == total)
        #expect(seen.last == total)
        #expect(seen.first.map { Int(total - $0) + 1 } == seen.count, "every version from the first one seen")
    }

    /// A publication that reaches the hub after it caught up to the same version (its handler
    /// asked for it just after the catch-up set the demand) is dropped, not sent twice.
    @Test func aPublicationOfAVersionTheHubCaughtUpToIsDropped() throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .zero)
        let hub = live.server.service.root.hub
        try post(3, to: live)
        _ = live.server.service.eventStatistics  // catches up
        let newest = try #require(live.server.service.root.publisher.snapshot as? StatePublication<AppState>)
        #expect(newest.version == 3)
        hub.publish(newest)
        #expect(hub.inbox.withLock { ($0.newestVersion, $0.history.map(\.version)) } == (3, [3]))
        #expect(live.server.service.eventStatistics.versions == 3)
    }
}
