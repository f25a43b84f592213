import ExampleApp
import Foundation
import HTTPTestSupport
import Journal
import ReMVVM
@testable import ReMVVMServer
import Testing

/// After a durable store's last stream leaves, its event hub keeps taking versions into its ring
/// for a grace (`ServiceConfiguration.eventHubIdleGrace`), so a client reconnecting after a blip
/// resumes from memory; the first version after the grace is the last it takes
/// (`EventHub+Demand.swift`). Skipping and catching up themselves: `EventDemandTests`.
@Suite struct EventIdleGraceTests {
    private func post(_ count: Int, to live: LiveServer) throws {
        for _ in 0..<count {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
    }

    /// Subscribes, reads the first event (`version`), leaves, and waits until the hub has seen it go.
    private func followThenLeave(_ live: LiveServer, expecting version: UInt64) throws {
        let stream = try live.subscribe()
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == version)
        stream.close()
        #expect(live.server.service.root.hub.waitForSubscribers(timeout: .seconds(5)) { $0 == 0 })
    }

    @Test func versionsMadeInTheGraceAreKeptInTheRingAndAResumeGetsThemFromThere() throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .seconds(3_600))
        let hub = live.server.service.root.hub
        try post(2, to: live)
        try followThenLeave(live, expecting: 2)
        #expect(waitUntil { hub.inbox.withLock { !$0.publications.listening && $0.idleGraceEnds != nil } }, "in its grace")
        try post(5, to: live)
        #expect(hub.demand.isWanted, "still taking versions")
        let (newest, ring) = hub.inbox.withLock { ($0.newestVersion, $0.history.map(\.version)) }
        #expect(newest == 7)
        #expect(Array(ring.suffix(6)) == Array(2...7), "the versions made while nobody listened are in the ring")

        let resumed = try SSEClient(
            port: live.port, path: "/events",
            headers: [("Accept", "text/event-stream"), ("Last-Event-ID", live.versionTags.tag(2))]
        )
        #expect(resumed.headers["ReMVVM-Replay"] == nil, "served, not reset")
        var versions: [UInt64] = []
        while versions.count < 5 {
            versions.append(try #require(try resumed.nextEvent(timeout: .seconds(5))?.version))
        }
        #expect(versions == Array(3...7))
        try post(1, to: live)
        #expect(try resumed.nextEvent(timeout: .seconds(5))?.version == 8)
        #expect(hub.inbox.withLock { $0.idleGraceEnds } == nil, "a publication with a stream listening ends the grace")
    }

    /// The grace ends at the first version published after it: from then on versions are skipped
    /// (and counted set aside when the hub next catches up), never before the grace has passed.
    @Test func theFirstVersionAfterTheGraceIsTheLastTaken() throws {
        let grace = Duration.milliseconds(300)
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: grace)
        let hub = live.server.service.root.hub
        try post(1, to: live)
        let left = ContinuousClock.now
        try followThenLeave(live, expecting: 1)
        var unsetAt: ContinuousClock.Instant?
        #expect(waitUntil(timeout: .seconds(10)) {
            _ = try? live.post(#"{"type":"increase"}"#)
            guard !hub.demand.isWanted else { return false }
            unsetAt = .now
            return true
        }, "a version after the grace unsets the demand")
        let unset = try #require(unsetAt)
        #expect(unset - left >= grace, "not before the grace passed: \(unset - left)")

        let taken = hub.inbox.withLock { $0.newestVersion }
        try post(3, to: live)
        #expect(hub.inbox.withLock { $0.newestVersion } == taken, "skipped")
        let statistics = live.server.service.eventStatistics
        #expect(statistics.versions == Int(taken) + 3)
        #expect(hub.inbox.withLock { $0.newestVersion } == taken + 3, "caught up")
        #expect(!hub.demand.isWanted)
    }

    /// A stream that comes while the hub is in its grace (or just past it, before any version)
    /// finds the demand set, and keeps it: the grace does not end it under the stream.
    @Test func aStreamThatComesInTheGraceKeepsTheVersionsComing() throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), eventHubIdleGrace: .milliseconds(1))
        let hub = live.server.service.root.hub
        try post(1, to: live)
        try followThenLeave(live, expecting: 1)
        let stream = try live.subscribe()
        #expect(try stream.nextEvent(timeout: .seconds(5))?.version == 1)
        try post(3, to: live)
        for version: UInt64 in 2...4 {
            #expect(try stream.nextEvent(timeout: .seconds(5))?.version == version)
        }
        #expect(hub.demand.isWanted)
        #expect(hub.inbox.withLock { $0.idleGraceEnds } == nil)
    }

    /// In memory the ring is the only history: the hub takes every version, with or without a
    /// stream, and has no grace to end.
    @Test func inMemoryTheHubTakesEveryVersionWithoutAGrace() throws {
        let live = try LiveServer(eventHubIdleGrace: .milliseconds(1))
        let hub = live.server.service.root.hub
        try post(1, to: live)
        try followThenLeave(live, expecting: 1)
        try post(3, to: live)
        #expect(hub.inbox.withLock { ($0.newestVersion, $0.idleGraceEnds) } == (4, nil))
        #expect(hub.demand.isWanted)
    }
}
