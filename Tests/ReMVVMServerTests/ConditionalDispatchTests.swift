import HTTPTestSupport
import Journal
import Testing

/// `If-Match` on `POST /actions` (docs/http-api.md, "Conditional and idempotent dispatch").
@Suite struct ConditionalDispatchTests {
    private func post(_ live: LiveServer, ifMatch: String) throws -> TestHTTPResponse {
        try live.post(#"{"type":"increase"}"#, headers: [("If-Match", ifMatch)])
    }

    @Test(arguments: Transport.allCases, [true, false])
    func theCurrentTagApplies(transport: Transport, journaled: Bool) throws {
        let live = try LiveServer(transport: transport, journal: journaled ? MemoryJournalStorage() : nil)
        #expect(try post(live, ifMatch: live.etag(0)).status == 200)
        #expect(try post(live, ifMatch: "\(live.etag(0)), \(live.etag(1))").status == 200, "a list with the current tag")
        #expect(try post(live, ifMatch: "*").status == 200)
        #expect(live.store.version == 3)
    }

    @Test(arguments: Transport.allCases, [true, false])
    func aStaleOrWeakTagIs412WithTheCurrentVersionAndNothingApplies(transport: Transport, journaled: Bool) throws {
        let live = try LiveServer(transport: transport, journal: journaled ? MemoryJournalStorage() : nil)
        _ = try live.post(#"{"type":"increase"}"#)
        // Tags compare character by character: the current version written otherwise is not it.
        let current = live.etag(1).dropFirst()
        for ifMatch in [live.etag(0), "W/" + live.etag(1), "\"banana\"", "\"0" + current, "\"+" + current] {
            let response = try post(live, ifMatch: ifMatch)
            #expect(response.status == 412, "\(ifMatch)")
            #expect(response.headers["ETag"] == live.etag(1))
            #expect(response.headers["Content-Type"] == "application/problem+json")
            let problem = try #require(response.problem)
            #expect(problem.type == "urn:remvvm:problem:version-mismatch")
            #expect(problem.currentVersion == 1)
        }
        #expect(live.store.version == 1, "nothing applied")
    }

    /// Two `If-None-Match` lines mean one line listing both (RFC 9110 §5.3); two `If-Match` lines
    /// are refused (`400`, issue 32): a write's precondition is read from one field, a list of tags
    /// goes in that one field.
    @Test(arguments: [true, false])
    func twoIfMatchLinesAreRefusedAndIfNoneMatchLinesAreOneList(journaled: Bool) throws {
        let live = try LiveServer(journal: journaled ? MemoryJournalStorage() : nil)
        _ = try live.post(#"{"type":"increase"}"#)
        let twoLines = try live.post(#"{"type":"increase"}"#, headers: [("If-Match", live.etag(0)), ("If-Match", live.etag(1))])
        #expect(twoLines.status == 400)
        #expect(twoLines.problem?.detail.contains("If-Match") == true)
        let oneList = try live.post(#"{"type":"increase"}"#, headers: [("If-Match", "\(live.etag(0)), \(live.etag(1))")])
        #expect(oneList.status == 200, "the list names the current version")
        let notModified = try live.get("/state", headers: [("If-None-Match", live.etag(0)), ("If-None-Match", live.etag(2))])
        #expect(notModified.status == 304)
        #expect(try live.get("/state", headers: [("If-None-Match", live.etag(0)), ("If-None-Match", live.etag(1))]).status == 200)
    }

    @Test func inMemoryATagOfAnotherInstanceNeverMatches() throws {
        let live = try LiveServer()
        let otherInstance = "\"0-00000000\""
        #expect(live.etag(0) != otherInstance)
        #expect(try post(live, ifMatch: otherInstance).status == 412)
    }
}
