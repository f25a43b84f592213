import ReMVVMClient
import Testing

/// The event-stream parser, against the HTML standard's rules (no server needed).
@Suite struct ServerSentEventParserTests {
    @Test func eventsAreDispatchedAtBlankLinesWithTheirTypeIdAndData() {
        var parser = ServerSentEventParser()
        let events = parser.parse(Array("retry: 1000\nid: 41\nevent: state\ndata: {\"version\":41}\n\nid: 42\nevent: patch\ndata: {\"version\":42}\n\n".utf8))
        #expect(events == [
            ServerSentEvent(type: "state", data: #"{"version":41}"#, id: "41"),
            ServerSentEvent(type: "patch", data: #"{"version":42}"#, id: "42"),
        ])
        #expect(parser.retry == .milliseconds(1000))
    }

    @Test func anEventSplitAcrossPiecesAtAnyByteIsTheSameEvent() {
        let text = Array("id: 7-3f9a2c1b\r\nevent: state\r\ndata: {\"a\":1}\r\n\r\n".utf8)
        for split in 0...text.count {
            var parser = ServerSentEventParser()
            let events = parser.parse(text[..<split]) + parser.parse(text[split...])
            #expect(events == [ServerSentEvent(type: "state", data: #"{"a":1}"#, id: "7-3f9a2c1b")], "split at \(split)")
        }
    }

    @Test func commentsHeartbeatsAndBlocksWithoutDataDispatchNothing() {
        var parser = ServerSentEventParser()
        #expect(parser.parse(Array(": ping\n: resumed\nretry: 250\n\nevent: state\n\n".utf8)).isEmpty)
        #expect(parser.retry == .milliseconds(250))
    }

    @Test func dataLinesAreJoinedWithLineFeedsAndCarriageReturnsEndLines() {
        var parser = ServerSentEventParser()
        #expect(parser.parse(Array("data: one\rdata:two\r\ndata\n\n".utf8)) == [ServerSentEvent(data: "one\ntwo\n")])
    }

    @Test func aRetryThatIsNotDigitsIsIgnoredAndAByteOrderMarkIsDropped() {
        var parser = ServerSentEventParser()
        #expect(parser.parse([0xEF, 0xBB, 0xBF] + Array("retry: 1s\ndata: x\n\n".utf8)) == [ServerSentEvent(data: "x")])
        #expect(parser.retry == nil)
    }
}
