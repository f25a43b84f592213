import HTTPTestSupport
import Journal
import Testing

/// `GET /events` with `Last-Event-ID` (docs/http-api.md, "Resuming event streams").
@Suite struct ResumableEventsTests {
    private func increase(_ live: LiveServer, times: Int) throws {
        for _ in 0..<times {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
    }

    private func resume(_ live: LiveServer, header: String? = nil, query: String? = nil) throws -> SSEClient {
        var headers = [("Accept", "text/event-stream")]
        if let header { headers.append(("Last-Event-ID", header)) }
        let path = query.map { "/events?lastEventId=\($0)" } ?? "/events"
        return try SSEClient(port: live.port, path: path, headers: headers)
    }

    @Test(arguments: [true, false])
    func aStreamResumedAfterAVersionGetsEveryLaterOneThenGoesLive(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        try increase(live, times: 5)
        let client = try resume(live, header: live.versionTags.tag(2))
        #expect(client.headers["ReMVVM-Replay"] == nil)
        for version: UInt64 in 3...5 {
            #expect(try client.nextEvent(timeout: .seconds(5))?.version == version)
        }
        try increase(live, times: 1)
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 6, "then live, no gap, no repeat")
        #expect(client.retry?.milliseconds == 1000, "the first block carries retry:")
    }

    /// Whitespace around a field value is not part of it (RFC 9110 §5.5).
    @Test func anIdWithWhitespaceAroundItResumes() throws {
        let live = try LiveServer()
        try increase(live, times: 3)
        for spaced in [" \(live.versionTags.tag(2)) ", "\(live.versionTags.tag(2))\t"] {
            let client = try resume(live, header: spaced)
            #expect(client.headers["ReMVVM-Replay"] == nil, "\(spaced.debugDescription)")
            #expect(try client.nextEvent(timeout: .seconds(5))?.version == 3)
        }
        for spaced in ["%20%20\(live.versionTags.tag(2))", "%09\(live.versionTags.tag(2))%20"] {
            let client = try resume(live, query: spaced)
            #expect(client.headers["ReMVVM-Replay"] == nil, "\(spaced)")
            #expect(try client.nextEvent(timeout: .seconds(5))?.version == 3)
        }
    }

    /// Two `Last-Event-ID` fields are refused (`400`, issue 32). Every value of the query
    /// parameter counts: values that disagree name no version, so the stream starts with the
    /// reset; values that agree resume.
    @Test func idsGivenTwiceMustAgree() throws {
        let live = try LiveServer()
        try increase(live, times: 3)
        let two = live.versionTags.tag(2)
        for headers in [[two, "abc"], ["abc", two], [two, two]] {
            let client = try SSEClient(
                port: live.port, path: "/events", headers: [("Accept", "text/event-stream")] + headers.map { ("Last-Event-ID", $0) }
            )
            #expect(client.status == 400, "\(headers)")
        }
        for (headers, query) in [([], "\(two)&lastEventId=abc")] as [([String], String?)] {
            let path = query.map { "/events?lastEventId=\($0)" } ?? "/events"
            let client = try SSEClient(
                port: live.port, path: path, headers: [("Accept", "text/event-stream")] + headers.map { ("Last-Event-ID", $0) }
            )
            #expect(client.headers["ReMVVM-Replay"] == "reset", "\(headers) \(query ?? "")")
            #expect(try client.nextEvent(timeout: .seconds(5))?.data.contains(#""reset":true"#) == true)
        }
        let agreeing = try SSEClient(
            port: live.port, path: "/events?lastEventId=\(two)&lastEventId=\(two)", headers: [("Accept", "text/event-stream")]
        )
        #expect(agreeing.headers["ReMVVM-Replay"] == nil)
        #expect(try agreeing.nextEvent(timeout: .seconds(5))?.version == 3)
    }

    @Test func theRingIsBoundedByBytesToo() throws {
        // This state's frames are smaller than 256 bytes and count as 256: 4,096 bytes keep the
        // newest 16 versions (the count bound alone, 10,000, would keep all 40).
        let live = try LiveServer(replayRingBytes: 4_096)
        try increase(live, times: 40)
        let recent = try resume(live, header: live.versionTags.tag(36))
        #expect(recent.headers["ReMVVM-Replay"] == nil)
        for version: UInt64 in 37...40 {
            #expect(try recent.nextEvent(timeout: .seconds(5))?.version == version)
        }
        let old = try resume(live, header: live.versionTags.tag(10))
        #expect(old.headers["ReMVVM-Replay"] == "reset", "version 11 is no longer in the ring")
        #expect(try old.nextEvent(timeout: .seconds(5))?.version == 40)
    }

    /// When a version's events outgrow the ring's bytes (a limit of none), the ring keeps nothing:
    /// versions kept from before would be replayed and the ones since missed (a gap).
    @Test func aRingThatCanKeepNoVersionKeepsNoneFromBefore() throws {
        let live = try LiveServer(replayRingBytes: 4_096)
        try increase(live, times: 10)
        let watcher = try resume(live, header: live.versionTags.tag(10))
        let name = String(repeating: "A", count: 5_000)
        #expect(try live.post(#"{"type":"login","payload":{"firstName":"\#(name)","lastName":"L"}}"#).status == 200)
        #expect(try watcher.nextEvent(timeout: .seconds(5))?.version == 11, "encoded: its size is known")
        try increase(live, times: 1)
        #expect(try watcher.nextEvent(timeout: .seconds(5))?.version == 12)
        let resumed = try resume(live, header: live.versionTags.tag(5))
        #expect(resumed.headers["ReMVVM-Replay"] == "reset", "versions 6...10 are no longer kept")
        let event = try #require(try resumed.nextEvent(timeout: .seconds(5)))
        #expect(event.version == 12 && event.data.contains(#""reset":true"#))
    }

    @Test func theHeaderWinsOverTheQueryParameter() throws {
        let live = try LiveServer()
        try increase(live, times: 4)
        let byQuery = try resume(live, query: live.versionTags.tag(3))
        #expect(try byQuery.nextEvent(timeout: .seconds(5))?.version == 4)
        let both = try resume(live, header: live.versionTags.tag(1), query: live.versionTags.tag(3))
        #expect(try both.nextEvent(timeout: .seconds(5))?.version == 2)
    }

    /// A stream resumed at the current version first gets the comment line `: resumed`, and its
    /// `retry:` comes with the next event (docs/http-api.md, "Resuming event streams").
    @Test func resumingAtTheCurrentVersionWaitsForTheNextChange() throws {
        let live = try LiveServer()
        try increase(live, times: 2)
        let client = try resume(live, header: live.versionTags.tag(2))
        #expect(client.status == 200)
        #expect(client.headers["ReMVVM-Replay"] == nil)
        // Subscribed before the change, so version 3 comes live rather than from the ring.
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 })
        try increase(live, times: 1)
        let event = try #require(try client.nextEvent(timeout: .seconds(5)))
        #expect(event.version == 3)
        #expect(event.event == "state")
        #expect(!event.data.contains(#""reset""#))
        #expect(client.comments == ["resumed"], "the comment line came first")
        #expect(client.retry?.milliseconds == 1000 && client.retry?.eventsBefore == 0, "retry: with the next event")
    }

    @Test func anIdThatCannotBeServedGetsTheCurrentStateMarkedAsAReset() throws {
        let live = try LiveServer()
        try increase(live, times: 2)
        for id in [live.versionTags.tag(9), "banana", "2-00000000", "-1"] {
            let client = try resume(live, header: id)
            #expect(client.status == 200, "never a 4xx or 204: those stop EventSource")
            #expect(client.headers["ReMVVM-Replay"] == "reset", "\(id)")
            let event = try #require(try client.nextEvent(timeout: .seconds(5)))
            #expect(event.version == 2)
            #expect(event.data.contains(#""reset":true"#), "\(id): \(event.data)")
        }
    }

    @Test func aVersionOlderThanWhatIsKeptIsAReset() throws {
        let live = try LiveServer(replayRingEvents: 3)
        try increase(live, times: 10)
        let stale = try resume(live, header: live.versionTags.tag(2))
        #expect(stale.headers["ReMVVM-Replay"] == "reset")
        #expect(try stale.nextEvent(timeout: .seconds(5))?.version == 10)
        let kept = try resume(live, header: live.versionTags.tag(7))
        #expect(kept.headers["ReMVVM-Replay"] == nil)
        #expect(try kept.nextEvent(timeout: .seconds(5))?.version == 8)
    }
}
