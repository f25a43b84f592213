import Testing

@testable import ReMVVMServer

/// `JSONCoding.string`: the fast JSON string literal gives exactly the encoder's bytes, for text
/// it copies and for text it hands to the encoder; and action envelopes built with it.
@Suite struct JSONStringTests {
    @Test(arguments: [
        "", "increase", "todo.add", "a/b", "émoji 🎉 ünïcødé", "quote \" inside", "back\\slash",
        "tab\tnew\nline\r", "bell\u{7}", "nul\u{0}", "del\u{7F}", "\u{1F}unit", "<script>",
    ])
    func aStringLiteralIsWhatTheEncoderWrites(_ text: String) throws {
        #expect(JSONCoding.string(text) == (try JSONCoding.encode(text)))
    }

    @Test func anEnvelopeNamesTheTypeAndLeavesAnEmptyPayloadOut() {
        #expect(String(decoding: ActionWireEncoder.envelope(type: "increase", payload: nil), as: UTF8.self) == #"{"type":"increase"}"#)
        #expect(String(decoding: ActionWireEncoder.envelope(type: "increase", payload: Array("{}".utf8)), as: UTF8.self) == #"{"type":"increase"}"#)
        #expect(String(decoding: ActionWireEncoder.envelope(type: "add", payload: Array(#"{"by":2}"#.utf8)), as: UTF8.self) == #"{"type":"add","payload":{"by":2}}"#)
        #expect(String(decoding: ActionWireEncoder.envelope(type: "say \"hi\"", payload: Array("[]".utf8)), as: UTF8.self) == #"{"type":"say \"hi\"","payload":[]}"#)
    }
}
