import HTTPTestSupport
import Testing

/// What the event publisher counts (`EventStatistics`) and logs when it stops: every version the
/// store reduced, whether or not a stream listened.
@Suite struct EventStatisticsTests {
    @Test func versionsReducedWhileNoStreamListensAreCountedAsSetAside() throws {
        let log = CapturedLog()
        let live = try LiveServer(logger: log.logger(level: .notice))
        for _ in 1...7 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        let statistics = live.server.service.eventStatistics
        #expect(statistics.versions == 7)
        #expect(statistics.versionsSetAside == 7)
        #expect(statistics.versionsProcessed == 0)
        #expect(statistics.statesEncoded == 0)
        live.server.shutdown()
        let stopped = log.messages.snapshot.filter { $0.hasPrefix("notice event publishing stopped:") }
        #expect(stopped.count == 1)
        #expect(stopped.first?.hasPrefix("notice event publishing stopped: 7 versions, 7 of them set aside while no stream listened, 0 states encoded,") == true)
    }

    @Test func versionsSentToAStreamAreCountedOnceBesideThoseSetAsideBefore() throws {
        let live = try LiveServer()
        for _ in 1...2 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
        }
        let stream = try live.subscribe()
        #expect(live.server.service.waitForSubscribers(timeout: .seconds(5)) { $0 == 1 })
        _ = try stream.nextEvent(timeout: .seconds(5))  // the current state, version 2
        for _ in 1...3 {
            #expect(try live.post(#"{"type":"increase"}"#).status == 200)
            _ = try stream.nextEvent(timeout: .seconds(5))
        }
        let statistics = live.server.service.eventStatistics
        #expect(statistics.versions == 5)
        #expect(statistics.versionsSetAside == 2)
        #expect(statistics.versionsProcessed == 3)
    }
}
