import HTTPTestSupport
import Testing

/// What an `EventSource` gets at the connection limit makes it come back without an event:
/// parsed by the WHATWG event-stream rules as ``SSEClient`` applies them, which also counts
/// the blocks that httpx-sse would dispatch as an empty `message` event (a blank line after
/// nothing but a comment and `retry:`).
@Suite struct EventSourceReconnectTests {
    @Test func theConnectionLimitAnswerSetsTheReconnectionTimeAndDispatchesNoEvent() throws {
        let live = try LiveServer(connectionLimit: 1)
        let held = try live.subscribe()  // the one connection the limit allows
        #expect(try held.nextEvent(timeout: .seconds(5))?.version == 0)

        for path in ["/events", "/viewmodels/events?name=counter", "/viewmodels/counter/events"] {
            let told = try SSEClient(port: live.port, path: path, headers: [("Accept", "text/event-stream"), ("Last-Event-ID", "3")])
            #expect(told.status == 200, "\(path)")
            _ = try told.waitForEnd(timeout: .seconds(5))  // the answer ends at once
            #expect(told.retry?.milliseconds == 1000, "\(path): retry: sets the reconnection time")
            #expect(told.eventCount == 0, "\(path): no event is dispatched")
            #expect(told.emptyBlocks == 0, "\(path): no block a client could take for an empty message")
            #expect(told.comments.first?.hasPrefix("The server has its limit of 1 connections open") == true, "\(told.comments)")
        }
        held.close()
    }
}
