import ConcurrencyKit
import HTTPTestSupport
import Journal
import SQLiteJournal
import Testing

/// `GET /events` resuming after a version the ring no longer holds, served from the journal
/// (docs/http-api.md, "Resuming event streams"; docs/event-delivery.md, "Resuming from the journal").
@Suite struct JournalResumeTests {
    /// The journals a durable server may use.
    enum Storage: String, CaseIterable, Sendable {
        case memory
        case sqlite

        func make(in directory: TemporaryDirectory) throws -> any JournalStorage {
            switch self {
            case .memory: MemoryJournalStorage()
            case .sqlite: try SQLiteJournalStorage(directory: directory.path, sync: .off)
            }
        }
    }

    /// Posts the actions of versions `range`, one request each (see ``action(_:)``).
    static func post(_ range: ClosedRange<Int>, to live: LiveServer) throws {
        for version in range {
            #expect(try live.post(action(version)).status == 200)
        }
    }

    /// The action that makes `version` in these tests: mostly increases, now and then a login
    /// with a payload or a logout, so that states and actions differ from event to event.
    static func action(_ version: Int) -> String {
        switch version % 7 {
        case 3: #"{"type":"login","payload":{"firstName":"Ada \#(version)","lastName":"Lovelace"}}"#
        case 5: #"{"type":"logout"}"#
        default: #"{"type":"increase"}"#
        }
    }

    /// Reads events until one for `version`, or fails; returns them all.
    static func events(from client: SSEClient, through version: UInt64) throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        while events.last?.version != version {
            let event = try #require(try client.nextEvent(timeout: .seconds(10)), "the stream ended after \(events.count) events")
            events.append(event)
        }
        return events
    }

    private func resume(_ live: LiveServer, after version: UInt64, receiveBufferSize: Int? = nil) throws -> SSEClient {
        try SSEClient(
            port: live.port,
            path: "/events",
            headers: [("Accept", "text/event-stream"), ("Last-Event-ID", live.versionTags.tag(version))],
            receiveBufferSize: receiveBufferSize
        )
    }

    @Test(arguments: Storage.allCases)
    func aStreamResumingBeyondTheRingGetsEveryLaterVersionFromTheJournalAsSentLiveThenGoesLive(storage: Storage) throws {
        let directory = try TemporaryDirectory(prefix: "remvvm-resume")
        let live = try LiveServer(journal: try storage.make(in: directory), snapshotEvery: 10, replayRingEvents: 5)
        let watcher = try live.subscribe()
        #expect(try watcher.nextEvent(timeout: .seconds(5))?.version == 0)
        try Self.post(1...50, to: live)
        let sentLive = try Self.events(from: watcher, through: 50)
        #expect(sentLive.compactMap(\.version) == Array(1...50))

        // 10 and 25: before every kept snapshot or between them; 42: after one; all before the ring.
        let resumed = try [10, 25, 42].map { after in (after, try resume(live, after: UInt64(after))) }
        for (after, client) in resumed {
            #expect(client.headers["ReMVVM-Replay"] == nil, "served, not reset")
            #expect(try Self.events(from: client, through: 50) == Array(sentLive[after...]), "after \(after): every later version once, in order, as sent live")
            #expect(client.retry?.milliseconds == 1000 && client.retry?.eventsBefore == 0, "the first block carries retry:")
        }
        try Self.post(51...53, to: live)
        let liveAgain = try Self.events(from: watcher, through: 53)
        for (after, client) in resumed {
            #expect(try Self.events(from: client, through: 53) == liveAgain, "after \(after): then live, no gap, no repeat")
        }
    }

    @Test func aResumeRebuildsFromTheNewestSnapshotAtOrBeforeItsVersionAndResetsWhenRecordsAreGone() throws {
        // As retention leaves a journal: snapshots of 20 (Ada logged in) and 40, records 21...50.
        let storage = MemoryJournalStorage()
        let user = #"{"firstName":"Ada","lastName":"Lovelace"}"#
        try storage.append((21...50).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        for version in [20, 40] {
            try storage.saveSnapshot(JournalSnapshot(version: UInt64(version), state: Array(#"{"counter":\#(version),"user":\#(user)}"#.utf8), time: 0))
        }
        let live = try LiveServer(journal: storage)
        for after: UInt64 in [20, 25, 40, 44] {
            let client = try resume(live, after: after)
            #expect(client.headers["ReMVVM-Replay"] == nil, "after \(after)")
            let events = try Self.events(from: client, through: 50)
            #expect(events.map(\.data) == (after + 1...50).map { #"{"version":\#($0),"action":{"type":"increase"},"state":{"counter":\#($0),"user":\#(user)}}"# },
                    "after \(after): rebuilt from the snapshot at or before it")
        }
        // Before the oldest record, with no snapshot at or before it: nothing to rebuild from.
        let stale = try resume(live, after: 15)
        #expect(stale.headers["ReMVVM-Replay"] == "reset")
        let reset = try #require(try stale.nextEvent(timeout: .seconds(5)))
        #expect(reset.version == 50 && reset.data.contains(#""reset":true"#), "\(reset.data)")
    }

    @Test func aVersionAfterAKeptSnapshotWhoseRecordsWereRemovedIsAReset() throws {
        // The snapshot of 20 is kept, but retention removed the records up to 30.
        let storage = MemoryJournalStorage()
        try storage.append((31...50).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        for version in [20, 40] {
            try storage.saveSnapshot(JournalSnapshot(version: UInt64(version), state: Array(#"{"counter":\#(version),"user":null}"#.utf8), time: 0))
        }
        let live = try LiveServer(journal: storage)
        for after: UInt64 in [20, 25, 33] {
            let client = try resume(live, after: after)
            #expect(client.headers["ReMVVM-Replay"] == "reset", "after \(after)")
            #expect(try client.nextEvent(timeout: .seconds(5))?.data.contains(#""reset":true"#) == true)
        }
        let served = try resume(live, after: 41)
        #expect(served.headers["ReMVVM-Replay"] == nil)
        #expect(try Self.events(from: served, through: 50).compactMap(\.version) == Array(42...50))
    }

    /// A record the replay cannot read (damaged, or of a type this build no longer registers) would
    /// end the stream at every reconnect, for ever: the stream sends the versions before it, then
    /// goes on with the current state marked as a reset, then live.
    @Test(arguments: [("login", #"{"firstName":5}"#), ("vanished", "{}")])
    func aRecordTheReplayCannotReadGoesOnWithAResetInsteadOfEndingAtEveryReconnect(type: String, payload: String) throws {
        let storage = MemoryJournalStorage()
        try storage.append((21...50).map { version in
            version == 30
                ? JournalRecord(version: 30, type: type, payload: Array(payload.utf8), time: 0)
                : JournalRecord(version: UInt64(version), type: "increase", payload: Array("{}".utf8), time: 0)
        })
        for version in [20, 40] {
            try storage.saveSnapshot(JournalSnapshot(version: UInt64(version), state: Array(#"{"counter":\#(version),"user":null}"#.utf8), time: 0))
        }
        let log = CapturedLog()
        let live = try LiveServer(journal: storage, logger: log.logger(level: .warning))
        let client = try resume(live, after: 25)
        #expect(client.headers["ReMVVM-Replay"] == nil, "served: the damage is found while replaying")
        let events = try Self.events(from: client, through: 50)
        #expect(events.map(\.version) == [26, 27, 28, 29, 50], "the versions before the damage, then the current state")
        #expect(events.last?.data.contains(#""reset":true"#) == true, "\(events.last?.data ?? "")")
        #expect(events.dropLast().allSatisfy { !$0.data.contains(#""reset""#) })
        #expect(client.retry?.eventsBefore == 0)
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        #expect(try client.nextEvent(timeout: .seconds(10))?.version == 51, "then live")
        let warning = try #require(log.messages.next(timeout: .seconds(5)))
        #expect(warning.contains("cannot be rebuilt past version 29") && warning.contains("reset"), "\(warning)")
    }

    /// Four streams resume from the journal at different moments while eight threads post: the
    /// ring moves on during each replay (with 5 entries, past it; with 50, into it).
    @Test(arguments: [5, 50])
    func streamsResumingFromTheJournalWhileEightThreadsPostGetEveryVersionOnceInOrder(ringEvents: Int) throws {
        let live = try LiveServer(journal: MemoryJournalStorage(), replayRingEvents: ringEvents)
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: 200).joined(separator: ",") + "]"
        #expect(try live.post(batch).status == 200)
        // Resumer i starts once version 260 + 150 i is reduced, after version 10 + 100 i.
        let reached = (0..<4).map { _ in Mailbox<Void>() }
        live.store.addPublicationHandler { publication in
            for index in reached.indices where publication.version == UInt64(260 + 150 * index) {
                reached[index].post(())
            }
        }
        let received = Lock<[Int: (header: String?, events: [SSEEvent])]>([:])
        let errors = runOnThreads(12) { index in
            guard index >= 8 else {
                for _ in 0..<100 {
                    _ = try live.post(#"{"type":"increase"}"#)
                }
                return
            }
            let resumer = index - 8
            _ = reached[resumer].next(timeout: .seconds(10))
            let client = try resume(live, after: UInt64(10 + 100 * resumer))
            let events = try Self.events(from: client, through: 1_000)
            received.withLock { $0[resumer] = (client.headers["ReMVVM-Replay"], events) }
        }
        #expect(errors.isEmpty, "\(errors)")
        let results = received.withLock { $0 }
        #expect(results.count == 4)
        for (resumer, result) in results.sorted(by: { $0.key < $1.key }) {
            let after = 10 + 100 * resumer
            #expect(result.header == nil, "after \(after): served from the journal, not reset")
            #expect(result.events.compactMap(\.version) == (UInt64(after) + 1...1_000).map { $0 },
                    "after \(after): every version once, in order, across the handover")
            let wrongStates = result.events.filter { event in
                !event.data.contains(#""state":{"counter":\#(event.version ?? 0),"user":null}"#)
            }
            #expect(wrongStates.isEmpty, "after \(after): \(wrongStates.prefix(3))")
        }
    }

    @Test(arguments: StreamWrites.allCases)
    func aJournalReplayLargerThanTheBacklogWaitsForTheClientAndHandsOverThroughTheRing(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes, subscriberBacklogBytes: 4_096, journal: MemoryJournalStorage(), replayRingEvents: 100)
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: 3_000).joined(separator: ",") + "]"
        #expect(try live.post(batch).status == 200)
        // About 250 KB for a client with a 4 KB receive buffer and a server allowed 4 KB of
        // backlog: sent all at once, it would be cut off. The replay waits for the client ...
        let client = try resume(live, after: 0, receiveBufferSize: 4_096)
        #expect(client.headers["ReMVVM-Replay"] == nil)
        // ... which reads nothing until 150 more versions are published: the replay, still in
        // the journal's versions, then finds the ring ahead of it and the rest in the ring.
        for _ in 3_001...3_150 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        let events = try Self.events(from: client, through: 3_150)
        #expect(events.map(\.data) == (1...3_150).map { #"{"version":\#($0),"action":{"type":"increase"},"state":{"counter":\#($0),"user":null}}"# })
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        #expect(try client.nextEvent(timeout: .seconds(5))?.version == 3_151, "then live")
    }

    @Test func withoutAJournalAVersionOlderThanTheRingIsStillAReset() throws {
        let live = try LiveServer(replayRingEvents: 5)
        try Self.post(1...50, to: live)
        let stale = try resume(live, after: 10)
        #expect(stale.headers["ReMVVM-Replay"] == "reset")
        let reset = try #require(try stale.nextEvent(timeout: .seconds(5)))
        #expect(reset.version == 50 && reset.data.contains(#""reset":true"#))
        let kept = try resume(live, after: 46)
        #expect(kept.headers["ReMVVM-Replay"] == nil)
        #expect(try Self.events(from: kept, through: 50).compactMap(\.version) == Array(47...50))
    }
}
