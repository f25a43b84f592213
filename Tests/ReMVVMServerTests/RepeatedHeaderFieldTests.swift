import HTTPTestSupport
import Testing

private struct VersionAnswer: Decodable {
    var version: UInt64
}

/// A field read as one value, sent twice, is refused before anything runs: `400` naming it
/// (`docs/http-api.md`, "Repeated header fields"). Before, the first was used and the second
/// ignored, so a retry carrying only the second key was applied again.
@Suite struct RepeatedHeaderFieldTests {
    private static let increase = #"{"type":"increase"}"#

    @Test func twoIdempotencyKeysAreRefusedAndNothingIsApplied() throws {
        let live = try LiveServer()
        let twice = try live.post(Self.increase, headers: [("Idempotency-Key", "first"), ("Idempotency-Key", "second")])
        #expect(twice.status == 400)
        #expect(twice.problem?.detail.contains("more than one Idempotency-Key header field") == true, "\(twice.bodyString)")
        // The retry the issue describes, with only the second key: applied once, as version 1.
        let retry = try live.post(Self.increase, headers: [("Idempotency-Key", "second")])
        #expect(try retry.decoded(VersionAnswer.self).version == 1)
    }

    @Test(arguments: ["Idempotency-Key", "If-Match", "Last-Event-ID", "Content-Type", "Authorization"])
    func eachFieldThatMustBeSingleIsRefusedWhenRepeated(name: String) throws {
        let live = try LiveServer()
        // The same value twice: what is refused is the repeat, whatever the values.
        let value = name == "Content-Type" ? "application/json" : "a"
        let contentType = name == "Content-Type" ? [] : [("Content-Type", "application/json")]
        let response = try live.send(
            method: "POST", path: "/actions",
            headers: contentType + [(name, value), (name.lowercased(), value)],
            body: Array(Self.increase.utf8)
        )
        #expect(response.status == 400, "\(name): \(response.bodyString)")
        #expect(response.problem?.detail.contains(name) == true, "\(response.bodyString)")
        #expect(try live.get("/state").headers["ETag"] == live.etag(0), "nothing applied")
    }

    @Test func severalEntityTagsInOneIfMatchFieldAreAList() throws {
        let live = try LiveServer()
        let tags = "\(live.etag(5)), \(live.etag(0))"
        let response = try live.post(Self.increase, headers: [("If-Match", tags)])
        #expect(response.status == 200, "\(response.bodyString)")
    }
}
