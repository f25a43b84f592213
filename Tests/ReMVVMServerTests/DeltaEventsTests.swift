import ConcurrencyKit
import Foundation
import HTTPTestSupport
import JSONPatch
import Testing

/// `GET /events?delta=json-patch` (docs/http-api.md, "Deltas").
@Suite struct DeltaEventsTests {
    /// A login whose names make the state large enough that an increase's patch is smaller than it.
    static let longLogin = #"{"type":"login","payload":{"firstName":"\#(String(repeating: "a", count: 60))","lastName":"B"}}"#

    @Test(arguments: StreamWrites.allCases)
    func theFirstEventIsTheFullStateThenEachVersionIsAPatch(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        #expect(try live.post(Self.longLogin).status == 200)
        let stream = try PatchStream(port: live.port)
        #expect(stream.client.status == 200)
        #expect(stream.client.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(stream.client.headers["ReMVVM-Replay"] == nil)

        let first = try #require(try stream.next())
        #expect(first.event.event == "state")
        #expect(first.event.id == live.versionTags.tag(1))
        #expect(first.event.data == #"{"version":1,"action":{"type":"login","payload":{"firstName":"\#(String(repeating: "a", count: 60))","lastName":"B"}},"state":{"counter":0,"user":{"firstName":"\#(String(repeating: "a", count: 60))","lastName":"B"}}}"#)
        #expect(stream.client.retry?.milliseconds == 1000 && stream.client.retry?.eventsBefore == 0)

        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        let second = try #require(try stream.next())
        #expect(second.event.event == "patch")
        #expect(second.event.id == live.versionTags.tag(2))
        #expect(second.event.data == #"{"version":2,"action":{"type":"increase"},"patch":[{"op":"replace","path":"/counter","value":1}]}"#)
    }

    @Test func aPatchLargerThanTheStateIsSentAsTheFullStateEvent() throws {
        let live = try LiveServer()
        let stream = try PatchStream(port: live.port)
        let plain = try live.subscribe()
        _ = try stream.next()
        _ = try plain.nextEvent(timeout: .seconds(5))
        // {"counter":1,"user":null} is 25 bytes; [{"op":"replace","path":"/counter","value":1}] is 47.
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        let event = try #require(try stream.next())
        #expect(event.event.event == "state")
        #expect(event.event == (try plain.nextEvent(timeout: .seconds(5))), "the same event a plain stream gets")
        #expect(live.server.service.eventStatistics.fullStatesInsteadOfPatches == 1)
    }

    @Test func aThousandRandomActionsGiveAPatchStreamTheStatesAPlainStreamGets() throws {
        let live = try LiveServer()
        let patches = HandedOver(try PatchStream(port: live.port))
        let plain = HandedOver(try live.subscribe())
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 2 })
        let total: UInt64 = 1_000
        let posters = 2
        let statesByStream = Lock<[String: [UInt64: [UInt8]]]>([:])
        let counts = Lock((patches: 0, states: 0))
        let errors = runOnThreads(2 + posters) { index in
            switch index {
            case 0:
                // The patch stream: the first event is the full state, ids consecutive, and each
                // event applied to the state before gives a state kept by version.
                var states: [UInt64: [UInt8]] = [:]
                let stream = patches.value
                let first = try stream.next()
                guard first?.event.event == "state", stream.version == 0 else {
                    throw PatchStreamFailure("the first event is not the full state of version 0: \(String(describing: first))")
                }
                states[0] = stream.state?.canonicalBytes
                while let version = stream.version, version < total {
                    guard try stream.next() != nil, stream.version == version + 1 else {
                        throw PatchStreamFailure("after version \(version) came \(String(describing: stream.version))")
                    }
                    states[version + 1] = stream.state?.canonicalBytes
                }
                statesByStream.withLock { $0["patch"] = states }
                counts.withLock { $0 = (stream.patchEvents, stream.stateEvents) }
            case 1:
                var states: [UInt64: [UInt8]] = [:]
                var version: UInt64 = 0
                repeat {
                    guard let event = try plain.value.nextEvent(timeout: .seconds(10)), let eventVersion = event.version,
                          let state = try JSON(parsing: event.data)["state"] else {
                        throw PatchStreamFailure("the plain stream ended or sent an event without a state")
                    }
                    version = eventVersion
                    states[version] = state.canonicalBytes
                } while version < total
                statesByStream.withLock { $0["plain"] = states }
            default:
                var random = SplitMix64(seed: UInt64(index))
                let client = live.client()
                for _ in 0..<(Int(total) / posters) {
                    let response = try live.post(Self.randomAction(using: &random), client: client)
                    guard response.status == 200 else { throw PatchStreamFailure("POST answered \(response.status)") }
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let states = statesByStream.withLock { $0 }
        let patchStates = try #require(states["patch"])
        let plainStates = try #require(states["plain"])
        #expect(patchStates.count == Int(total) + 1)
        for version in 0...total {
            #expect(patchStates[version] == plainStates[version], "version \(version)")
        }
        let current = try live.get("/state")
        #expect(patchStates[total] == (try JSON(parsing: current.body)).canonicalBytes)
        // Both kinds of event occurred: patches, and full states where a patch would be larger.
        let (patchEvents, stateEvents) = counts.withLock { $0 }
        #expect(patchEvents > 100 && stateEvents > 100, "\(patchEvents) patches, \(stateEvents) states")
        let statistics = live.server.service.eventStatistics
        #expect(statistics.patchesComputed == Int(total), "one diff per version")
        #expect(statistics.statesEncoded == Int(total), "one encoding per version for both streams")
    }

    /// An increase, decrease, login (names of random length, with characters JSON and JSON
    /// pointers escape) or logout.
    static func randomAction(using random: inout SplitMix64) -> String {
        let pieces = ["a", "Zoë", "/", "~", "~1", "\"", "\\", "😀", "e\u{301}", "é", " ", "\n", "Ada", "Lovelace"]
        func name() -> JSON {
            .string((0..<Int.random(in: 0...30, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
        }
        let action: JSON
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1, 2: action = ["type": "increase"]
        case 3, 4: action = ["type": "decrease"]
        case 5, 6: action = ["type": "login", "payload": ["firstName": name(), "lastName": name()]]
        default: action = ["type": "logout"]
        }
        return action.canonicalText
    }

    @Test(arguments: ["foo", "", "JSON-PATCH", "json-patch,x"])
    func anUnknownDeltaIsABadRequestThatChangesNothing(delta: String) throws {
        let live = try LiveServer()
        let query = delta.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? delta
        let response = try live.get("/events?delta=\(query)").expect(status: 400, contentType: "application/problem+json")
        let problem = try #require(response.problem)
        #expect(problem.title == "Bad Request")
        #expect(problem.status == 400)
        #expect(problem.detail.contains("json-patch"), "\(problem.detail)")
        #expect(problem.known == ["json-patch"])
        #expect(problem.field == "delta")
        #expect(live.server.service.subscriberCount == 0)
        #expect(try live.get("/healthz").status == 200)
    }

    @Test func eachVersionIsDiffedOnceWhateverTheNumberOfPatchStreams() throws {
        let live = try LiveServer()
        #expect(try live.post(Self.longLogin).status == 200)
        let streams = try (0..<8).map { _ in try PatchStream(port: live.port) }
        let plain = try live.subscribe()
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 9 })
        for stream in streams {
            _ = try stream.next()
        }
        _ = try plain.nextEvent(timeout: .seconds(5))
        let before = live.server.service.eventStatistics
        let versions = 20
        for _ in 0..<versions {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        for stream in streams {
            while let version = stream.version, version < UInt64(1 + versions) {
                _ = try #require(try stream.next())
            }
            #expect(stream.patchEvents == versions)
        }
        let after = live.server.service.eventStatistics
        #expect(after.patchesComputed - before.patchesComputed == versions)
        #expect(after.statesParsed - before.statesParsed == versions)
        #expect(after.statesEncoded - before.statesEncoded == versions)
    }

    @Test func withoutPatchStreamsNothingIsParsedOrDiffed() throws {
        let live = try LiveServer()
        let plain = try live.subscribe()
        _ = try plain.nextEvent(timeout: .seconds(5))
        for _ in 0..<10 {
            #expect(try live.post(Self.longLogin).status == 200)
        }
        for version: UInt64 in 1...10 {
            #expect(try plain.nextEvent(timeout: .seconds(5))?.version == version)
        }
        let statistics = live.server.service.eventStatistics
        #expect(statistics.statesParsed == 0 && statistics.patchesComputed == 0)
        #expect(statistics.statesEncoded == 10)
    }

    @Test func theKeptStateIsDroppedWhenTheLastPatchStreamLeavesAndKeptAgainForTheNext() throws {
        let live = try LiveServer()
        #expect(try live.post(Self.longLogin).status == 200)
        let plain = try live.subscribe()
        _ = try plain.nextEvent(timeout: .seconds(5))
        do {
            let leaving = try PatchStream(port: live.port)
            _ = try leaving.next()
            leaving.client.close()
        }
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 })
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        #expect(try plain.nextEvent(timeout: .seconds(5))?.version == 2)
        let joining = try PatchStream(port: live.port)
        #expect(try joining.next()?.event.event == "state")
        #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        let patch = try #require(try joining.next())
        #expect(patch.event.data == #"{"version":3,"action":{"type":"increase"},"patch":[{"op":"replace","path":"/counter","value":2}]}"#)
    }

    @Test(arguments: StreamWrites.allCases)
    func aStalledPatchStreamIsDisconnectedWhileOthersContinue(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes, subscriberBacklogBytes: 64 * 1_024)
        let stalled = try PatchStream(port: live.port, receiveBufferSize: 1_024)
        let healthy = try PatchStream(port: live.port)
        _ = try healthy.next()
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 2 })
        // ~2 MB of events (each ~4 KB: a 4,000-character name changes every time).
        let client = live.client()
        for version in 1...500 {
            let name = String(repeating: version % 2 == 0 ? "a" : "b", count: 4_000)
            _ = try live.post(#"{"type":"login","payload":{"firstName":"\#(name)","lastName":"B"}}"#, client: client)
            guard try healthy.next() != nil else { break }
            #expect(healthy.version == UInt64(version))
        }
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 }, "the stalled stream is cut off")
        #expect(try stalled.client.waitForEnd(timeout: .seconds(10)) == .aborted)
    }
}
