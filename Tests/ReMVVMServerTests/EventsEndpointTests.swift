import ExampleApp
import Foundation
import HTTPTestSupport
import Testing

/// `GET /events`: server-sent events as docs/http-api.md specifies them.
@Suite struct EventsEndpointTests {
    @Test(arguments: StreamWrites.allCases)
    func streamHasTheEventStreamHeaders(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        let events = try live.subscribe()
        #expect(events.status == 200)
        #expect(events.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(events.headers["Cache-Control"] == "no-cache")
        #expect(events.headers["X-Accel-Buffering"] == "no")
    }

    @Test(arguments: StreamWrites.allCases)
    func firstEventIsTheCurrentStateThenOneEventPerReduceWithIdsEqualToVersions(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        _ = try live.post(#"{"type":"increase"}"#)
        let events = try live.subscribe()

        let first = try #require(try events.nextEvent(timeout: .seconds(5)))
        #expect(first.version == 1)
        #expect(first.event == "state")
        #expect(first.data == #"{"version":1,"action":{"type":"increase"},"state":{"counter":1,"user":null}}"#)

        _ = try live.post(#"{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        _ = try live.post(#"{"type":"logout"}"#)
        let second = try #require(try events.nextEvent(timeout: .seconds(5)))
        let third = try #require(try events.nextEvent(timeout: .seconds(5)))
        #expect(second.version == 2)
        #expect(second.data == #"{"version":2,"action":{"type":"login","payload":{"firstName":"Ada","lastName":"Lovelace"}},"state":{"counter":1,"user":{"firstName":"Ada","lastName":"Lovelace"}}}"#)
        #expect(third.version == 3)
        #expect(third.stateBody?.action?.type == "logout")
        #expect(third.stateBody?.state == AppState(counter: 1, user: nil))
    }

    @Test(arguments: StreamWrites.allCases)
    func firstEventBeforeAnyReduceHasNoAction(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        let first = try #require(try live.subscribe().nextEvent(timeout: .seconds(5)))
        #expect(first.version == 0)
        #expect(first.data == #"{"version":0,"action":null,"state":{"counter":0,"user":null}}"#)
    }

    @Test(arguments: StreamWrites.allCases)
    func eventsArriveInVersionOrderWithoutGapsUnderConcurrentPosting(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        let events = try live.subscribe()
        _ = try events.nextEvent(timeout: .seconds(5))
        let errors = runOnThreads(8) { _ in
            let client = live.client()
            for _ in 0..<50 {
                _ = try live.post(#"{"type":"increase"}"#, client: client)
            }
        }
        #expect(errors.isEmpty)
        var versions: [UInt64] = []
        while versions.count < 400, let event = try events.nextEvent(timeout: .seconds(5)) {
            let body = try #require(event.stateBody)
            #expect(event.version == UInt64(body.version))
            #expect(UInt64(body.state.counter) == body.version)
            versions.append(body.version)
        }
        #expect(versions == Array(1...400))
    }

    @Test(arguments: StreamWrites.allCases)
    func heartbeatCommentsArriveWhileNothingHappens(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes, heartbeat: .milliseconds(100))
        let events = try live.subscribe()
        _ = try events.nextEvent(timeout: .seconds(5))
        var heartbeats = 0
        while heartbeats < 2, let item = try events.nextItem(timeout: .seconds(5)) {
            if case .comment = item { heartbeats += 1 }
        }
        #expect(heartbeats == 2)
    }

    @Test(arguments: StreamWrites.allCases)
    func stalledSubscriberIsDisconnectedWhileOthersContinue(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes, subscriberBacklogBytes: 64 * 1_024)
        let stalled = try live.subscribe(receiveBufferSize: 1_024)
        let healthy = try live.subscribe()
        _ = try healthy.nextEvent(timeout: .seconds(5))
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 2 })

        // ~2 MB of events (each ~8 KB): more than the stalled client's socket buffers and backlog hold.
        let eventCount = 250
        let login = #"{"type":"login","payload":{"firstName":"\#(String(repeating: "a", count: 4_000))","lastName":"B"}}"#
        // The healthy subscriber reads each event before the next post: it never falls behind.
        let client = live.client()
        var received = 0
        for version in 1...eventCount {
            _ = try live.post(login, client: client)
            guard let event = try healthy.nextEvent(timeout: .seconds(10)) else { break }
            #expect(event.version == UInt64(version))
            received += 1
        }

        #expect(received == eventCount, "the healthy subscriber got every event")
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 }, "the stalled subscriber is cut off")
        #expect(try stalled.waitForEnd(timeout: .seconds(10)) == .aborted, "the stalled stream was dropped, not ended cleanly")
    }

    @Test(arguments: StreamWrites.allCases)
    func aStateLargerThanTheSubscriberBacklogStillStreams(writes: StreamWrites) throws {
        // Each event (~6 KB) is larger than the 1 KB backlog; a subscriber that keeps up must get
        // them all, not be cut off at its first event and reconnect forever.
        let live = try LiveServer(writes: writes, subscriberBacklogBytes: 1_024)
        let login = #"{"type":"login","payload":{"firstName":"\#(String(repeating: "a", count: 6_000))","lastName":"B"}}"#
        _ = try live.post(login, client: live.client())
        let subscriber = try live.subscribe()
        let first = try #require(try subscriber.nextEvent(timeout: .seconds(5)))
        #expect(first.version == 1)
        #expect(first.data.utf8.count > 6_000)
        _ = try live.post(#"{"type":"increase"}"#, client: live.client())
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 2)
        #expect(live.server.service.subscriberCount == 1)
    }

    @Test(arguments: StreamWrites.allCases)
    func clientDisconnectingMidStreamIsForgottenAndOthersContinue(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes, heartbeat: .milliseconds(100))
        let leaving = try live.subscribe()
        let staying = try live.subscribe()
        _ = try leaving.nextEvent(timeout: .seconds(5))
        _ = try staying.nextEvent(timeout: .seconds(5))
        leaving.close()

        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 }, "noticed at the next write, at the latest the heartbeat")
        _ = try live.post(#"{"type":"increase"}"#)
        #expect(try staying.nextEvent(timeout: .seconds(5))?.version == 1)
    }

    @Test(arguments: StreamWrites.allCases)
    func eventIdsCarryTheInstanceSoAnIdFromAnEarlierProcessIsNeverRepeated(writes: StreamWrites) throws {
        let before = try LiveServer(writes: writes)
        let after = try LiveServer(writes: writes)
        let first = try #require(try before.subscribe().nextEvent(timeout: .seconds(5)))
        let second = try #require(try after.subscribe().nextEvent(timeout: .seconds(5)))
        #expect(first.version == 0 && second.version == 0)
        #expect(first.id != second.id)
        #expect(first.id == before.versionTags.tag(0))
        #expect(first.id?.wholeMatch(of: /0-[0-9a-f]{8}/) != nil)
    }

    @Test(arguments: StreamWrites.allCases)
    func theFirstEventOfEveryStreamCarriesTheReconnectDelay(writes: StreamWrites) throws {
        let live = try LiveServer(writes: writes)
        let subscriber = try live.subscribe()
        #expect(try subscriber.nextEvent(timeout: .seconds(5))?.version == 0)
        #expect(subscriber.retry?.milliseconds == 1000)
        #expect(subscriber.retry?.eventsBefore == 0, "in the first event's block")
    }
}
