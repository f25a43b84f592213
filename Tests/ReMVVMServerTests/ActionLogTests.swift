import Foundation
import HTTPTestSupport
import Journal
import Testing

private struct ActionLog: Decodable {
    struct Action: Decodable {
        var version: UInt64
        var type: String
        var payload: [String: String]
        var time: String
    }

    var earliest: UInt64?
    var latest: UInt64
    var actions: [Action]
}

/// `GET /actions?since=&limit=` (docs/http-api.md, "Action log"), with a journal and in memory.
@Suite struct ActionLogTests {
    private func postHistory(_ live: LiveServer) throws {
        _ = try live.post(#"{"type":"increase"}"#)
        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        _ = try live.post(#"[{"type":"decrease"},{"type":"logout"},{"type":"increase"}]"#)
    }

    @Test(arguments: [true, false])
    func theLogListsEveryReducedActionOldestFirstWithItsPayloadAndTime(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        try postHistory(live)
        let log = try live.get("/actions").decoded(ActionLog.self)
        #expect(log.earliest == 1)
        #expect(log.latest == 5)
        #expect(log.actions.map(\.version) == [1, 2, 3, 4, 5])
        #expect(log.actions.map(\.type) == ["increase", "login", "decrease", "logout", "increase"])
        #expect(log.actions[1].payload == ["firstName": "Ada", "lastName": "Lovelace"])
        #expect(log.actions[0].payload.isEmpty)
        let time = log.actions[0].time
        #expect(time.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "RFC 3339: \(time)")

        let page = try live.get("/actions?since=2&limit=2").decoded(ActionLog.self)
        #expect(page.actions.map(\.version) == [3, 4])
        #expect(try live.get("/actions?since=5").decoded(ActionLog.self).actions.isEmpty)
    }

    /// Nothing reduced yet: no record is kept, so `earliest` is `null` (docs/http-api.md, "Action
    /// log"), members in the order the page shows, compact.
    @Test(arguments: [true, false])
    func aFreshServersLogIsEmptyWithANullEarliest(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let response = try live.get("/actions").expect(status: 200, contentType: "application/json")
        #expect(response.bodyString == #"{"earliest":null,"latest":0,"actions":[]}"#)
    }

    @Test func badParametersAre400ProblemsNamingTheParameter() throws {
        let live = try LiveServer()
        for (query, field) in [("since=-1", "since"), ("since=abc", "since"), ("limit=0", "limit"), ("limit=1001", "limit")] {
            let response = try live.get("/actions?\(query)")
            #expect(response.status == 400, "\(query)")
            #expect(response.problem?.field == field, "\(query)")
        }
    }

    @Test func inMemoryTheLogKeepsTheNewestThousand() throws {
        let live = try LiveServer()
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: 1_100).joined(separator: ",") + "]"
        #expect(try live.post(batch).status == 200)
        let log = try live.get("/actions?limit=1000").decoded(ActionLog.self)
        #expect(log.earliest == 101)
        #expect(log.latest == 1_100)
        #expect(log.actions.first?.version == 101, "since older than what is kept starts at the earliest")
        #expect(log.actions.count == 1_000)
        #expect(log.actions.map(\.version) == Array(101...1_100), "oldest first, every one")
        // Across the first thousand and the ones that pushed the oldest out.
        let acrossTheWrap = try live.get("/actions?since=995&limit=10").decoded(ActionLog.self)
        #expect(acrossTheWrap.actions.map(\.version) == Array(996...1_005))
    }

    @Test(arguments: [true, false])
    func withoutALimitAPageHoldsAHundredActions(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        let batch = "[" + Array(repeating: #"{"type":"increase"}"#, count: 150).joined(separator: ",") + "]"
        #expect(try live.post(batch).status == 200)
        let page = try live.get("/actions").decoded(ActionLog.self)
        #expect(page.actions.map(\.version) == Array(1...100))
        #expect(page.latest == 150)
        #expect(try live.get("/actions?since=100").decoded(ActionLog.self).actions.map(\.version) == Array(101...150))
    }

    /// With a journal whose retention removed the records up to 30: a `since` before them starts
    /// at the earliest one kept.
    @Test func aSinceOlderThanTheJournalKeepsStartsAtItsEarliestRecord() throws {
        let storage = MemoryJournalStorage()
        try storage.append((31...50).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        try storage.saveSnapshot(JournalSnapshot(version: 40, state: Array(#"{"counter":40,"user":null}"#.utf8), time: 0))
        let live = try LiveServer(journal: storage)
        for since in [0, 5, 30] {
            let log = try live.get("/actions?since=\(since)&limit=5").decoded(ActionLog.self)
            #expect(log.earliest == 31, "since=\(since)")
            #expect(log.actions.map(\.version) == Array(31...35), "since=\(since)")
        }
        #expect(try live.get("/actions?since=33&limit=2").decoded(ActionLog.self).actions.map(\.version) == [34, 35])
    }

    /// Retention removing the oldest records between the page's read and its earliest version's
    /// (a shared log reads them with separate statements): the answer still comes from one moment —
    /// its first action is its `earliest`, never one the `earliest` says is gone.
    @Test func aPageAndItsEarliestComeFromOneMomentWhenRetentionRunsBetweenTheirReads() throws {
        let storage = MemoryJournalStorage()
        try storage.append((1...50).map { JournalRecord(version: $0, type: "increase", payload: Array("{}".utf8), time: 0) })
        // Two snapshots: retention removes nothing while a store has one.
        try storage.saveSnapshot(JournalSnapshot(version: 38, state: Array(#"{"counter":38,"user":null}"#.utf8), time: 0))
        try storage.saveSnapshot(JournalSnapshot(version: 40, state: Array(#"{"counter":40,"user":null}"#.utf8), time: 0))
        let live = try LiveServer(journal: storage)
        storage.afterNextPageRead { try? storage.removeRecords(through: 36) }
        let log = try live.get("/actions?since=0&limit=3").decoded(ActionLog.self)
        #expect(log.earliest == 37)
        #expect(log.actions.map(\.version) == [37, 38, 39])
    }

    /// A record damaged in the journal (before the snapshot a start replays from, so the start
    /// did not meet it) is shown as damaged: spliced as it is, it made the whole answer invalid JSON.
    @Test func aDamagedRecordIsShownAsDamagedAndTheRestOfTheLogStaysReadable() throws {
        let storage = MemoryJournalStorage()
        let payloads = [31: #"{"firstName":"Ada","la"#, 32: "[1]", 33: "{}", 34: ""]
        try storage.append((31...34).map { JournalRecord(version: $0, type: "login", payload: Array(payloads[Int($0)]!.utf8), time: 0) })
        try storage.saveSnapshot(JournalSnapshot(version: 34, state: Array(#"{"counter":0,"user":null}"#.utf8), time: 0))
        let live = try LiveServer(journal: storage)
        let actions = try live.actionLog()
        #expect(actions.map { $0["version"] as? Int } == [31, 32, 33, 34])
        #expect(actions[0]["payload"] is NSNull && (actions[0]["damaged"] as? String)?.contains("not JSON") == true, "\(actions[0])")
        #expect(actions[1]["payload"] is NSNull && (actions[1]["damaged"] as? String)?.contains("not an object") == true, "\(actions[1])")
        #expect(actions[2]["payload"] is [String: Any] && actions[2]["damaged"] == nil)
        #expect(actions[3]["payload"] is [String: Any] && actions[3]["damaged"] == nil)
    }
}
