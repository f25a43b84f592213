import HTTPTestSupport
import Journal
import Testing

/// `GET /events?delta=json-patch` with `Last-Event-ID` (docs/http-api.md, "Deltas" and
/// "Resuming event streams").
@Suite struct DeltaResumeTests {
    /// A server at version 5: a long login (so that increases are patches), then four increases.
    private func serverAtVersionFive(replayRingEvents: Int = 10_000, journal: (any JournalStorage)? = nil) throws -> LiveServer {
        let live = try LiveServer(journal: journal, replayRingEvents: replayRingEvents)
        #expect(try live.post(DeltaEventsTests.longLogin).status == 200)
        for _ in 0..<4 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        return live
    }

    @Test func resumingAtTheNewestVersionSendsNothingUntilTheNextPatch() throws {
        let live = try serverAtVersionFive()
        let stream = try PatchStream(port: live.port, lastEventId: live.versionTags.tag(5))
        #expect(stream.client.status == 200)
        #expect(stream.client.headers["ReMVVM-Replay"] == nil)
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 })
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        let event = try #require(try stream.client.nextEvent(timeout: .seconds(5)))
        #expect(event.event == "patch", "the first event takes the client's version 5 to 6")
        #expect(event.id == live.versionTags.tag(6))
        #expect(event.data == #"{"version":6,"action":{"type":"increase"},"patch":[{"op":"replace","path":"/counter","value":5}]}"#)
        #expect(stream.client.retry?.milliseconds == 1000 && stream.client.retry?.eventsBefore == 0, "retry: in the first block")
        #expect(stream.client.comments == ["resumed"])
    }

    @Test(arguments: [false, true])
    func resumingAfterAnOlderVersionStartsFromTheFullStateWithoutAReset(byQuery: Bool) throws {
        let live = try serverAtVersionFive()
        let stream = byQuery
            ? try PatchStream(port: live.port, query: "delta=json-patch&lastEventId=\(live.versionTags.tag(2))")
            : try PatchStream(port: live.port, lastEventId: live.versionTags.tag(2))
        #expect(stream.client.headers["ReMVVM-Replay"] == nil)
        let first = try #require(try stream.next())
        #expect(first.event.event == "state")
        #expect(first.event.version == 5)
        #expect(first.data["reset"] == nil)
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        #expect(try stream.next()?.event.event == "patch")
        #expect(stream.version == 6)
    }

    @Test func anIdThatCannotBeServedGetsTheFullStateMarkedAsAReset() throws {
        let live = try serverAtVersionFive()
        for id in [live.versionTags.tag(9), "banana", "2-00000000", "-1"] {
            let stream = try PatchStream(port: live.port, lastEventId: id)
            #expect(stream.client.status == 200)
            #expect(stream.client.headers["ReMVVM-Replay"] == "reset", "\(id)")
            let first = try #require(try stream.next())
            #expect(first.event.event == "state")
            #expect(first.event.version == 5)
            #expect(first.data["reset"] == true, "\(id): \(first.event.data)")
        }
    }

    @Test func aVersionOlderThanTheRingIsAResetWithoutAJournal() throws {
        let live = try serverAtVersionFive(replayRingEvents: 2)
        let stale = try PatchStream(port: live.port, lastEventId: live.versionTags.tag(1))
        #expect(stale.client.headers["ReMVVM-Replay"] == "reset")
        #expect(try stale.next()?.data["reset"] == true)
        let kept = try PatchStream(port: live.port, lastEventId: live.versionTags.tag(4))
        #expect(kept.client.headers["ReMVVM-Replay"] == nil)
        #expect(try kept.next()?.data["reset"] == nil)
    }

    @Test func aVersionOlderThanTheRingThatTheJournalHoldsIsNoReset() throws {
        let live = try serverAtVersionFive(replayRingEvents: 2, journal: MemoryJournalStorage())
        let stream = try PatchStream(port: live.port, lastEventId: live.versionTags.tag(1))
        #expect(stream.client.headers["ReMVVM-Replay"] == nil)
        let first = try #require(try stream.next())
        #expect(first.event.event == "state" && first.event.version == 5)
        #expect(first.data["reset"] == nil)
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        #expect(try stream.next()?.event.event == "patch")
    }
}
