import Foundation
import HTTPTestSupport
@testable import ReMVVMServer
import Testing

/// The body parser is RFC 8259 exactly: what Foundation would guess or tolerate is refused.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #"0"#, #"-0.5e+10"#, #"1E3"#, #""text""#, #"true"#, #"false"#, #"null"#,
        #" { "a" : [ 1 , 2.5 , { } , [ ] , "x\"y\\z\/\b\f\n\r\t\u00e9" ] , "b" : null } "#,
        #"{"a":1,"A":2}"#, #"{"é":1,"e":2}"#, #"{"\ud83d\ude00":1}"#, #"["😀", "ünïcode"]"#,
    ])
    func validJSONIsAccepted(_ text: String) throws {
        #expect(throws: Never.self) { try StrictJSONValidator.validate(Array(text.utf8)) }
        // Foundation agrees that these are JSON, so the validator never refuses what a client may send.
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) }
    }

    @Test(arguments: [
        (#"{"type":"increase",}"#, "trailing comma or missing member name"),
        (#"[1,2,]"#, "trailing comma in an array"),
        (#"{"type":"increase","type":"decrease"}"#, "duplicate member name \"type\""),
        (#"{"a":1,"\u0061":2}"#, "duplicate member name \"a\""),
        (#"{"a":{"b":1,"b":2}}"#, "duplicate member name \"b\""),
        // Different code points, one name once normalized: the decoder would merge them.
        (#"{"\u00e9":1,"e\u0301":2}"#, "duplicate member name \"e\u{301}\" (the same name as \"\u{E9}\" once Unicode-normalized: decoding would keep only one of them)"),
        (#"[01]"#, "leading zero in a number"),
        (#"[1.]"#, "digits expected after the decimal point"),
        (#"[.5]"#, "unexpected '.' where a value was expected"),
        (#"[+1]"#, "unexpected '+' where a value was expected"),
        (#"{"a":1} x"#, "unexpected 'x' after the JSON value"),
        (#"{"a":1}{"#, "unexpected '{' after the JSON value"),
        (#"{a:1}"#, "expected a member name in quotes"),
        (#"['x']"#, "unexpected ''' where a value was expected"),
        (#"["\x"]"#, "invalid escape \\'x'"),
        (#"["\u12"]"#, "\\u must be followed by four hex digits"),
        ("[\"tab\there\"]", "control character byte 0x9 in a string (escape it)"),
        (#"["open"#, "unterminated string"),
        (#"[tru]"#, "unexpected 't' where a value was expected"),
        (#"// comment"#, "unexpected '/' where a value was expected"),
        ("", "the JSON text ends where a value was expected"),
    ])
    func invalidJSONIsRefusedWithTheReason(_ text: String, reason: String) {
        do throws(StrictJSONValidator.Failure) {
            try StrictJSONValidator.validate(Array(text.utf8))
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.reason == reason, "\(text)")
        }
    }

    @Test func aUTF16BodyIsRefused() {
        let utf16 = Array(#"{"type":"increase"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(throws: StrictJSONValidator.Failure.self) { try StrictJSONValidator.validate(utf16) }
    }

    @Test func nestingIsBounded() {
        let deep = Array(repeating: UInt8(ascii: "["), count: 600) + Array(repeating: UInt8(ascii: "]"), count: 600)
        #expect(throws: StrictJSONValidator.Failure(reason: "arrays and objects nest deeper than 512 levels", offset: 512)) {
            try StrictJSONValidator.validate(deep)
        }
        let fine = Array(repeating: UInt8(ascii: "["), count: 512) + Array(repeating: UInt8(ascii: "]"), count: 512)
        #expect(throws: Never.self) { try StrictJSONValidator.validate(fine) }
    }

    // Over the wire, each case from the reliability review.

    @Test(arguments: Transport.allCases)
    func aTrailingCommaIs400AndChangesNothing(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(#"{"type":"increase",}"#)
        #expect(response.status == 400)
        #expect(response.problem?.detail.contains("trailing comma") == true)
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func duplicateKeysAre400AndChangeNothing(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        let response = try live.post(#"{"type":"increase","type":"decrease"}"#)
        #expect(response.status == 400)
        #expect(response.problem?.detail.contains("duplicate member name \"type\"") == true)
        #expect(live.store.version == 0)
    }

    @Test func aUTF16BodyIs400AndChangesNothing() throws {
        let live = try LiveServer()
        let body = Array(#"{"type":"increase"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let response = try live.client().send(
            method: "POST", path: "/actions", headers: [("Content-Type", "application/json")], body: body
        )
        #expect(response.status == 400)
        #expect(live.store.version == 0)
    }

    @Test(arguments: [#"5"#, #""x""#, #"[]"#, #"true"#])
    func aPayloadThatIsNotAnObjectIs422NamingIt(_ payload: String) throws {
        let live = try LiveServer()
        let response = try live.post(#"{"type":"increase","payload":\#(payload)}"#)
        #expect(response.status == 422)
        #expect(response.problem?.field == "payload")
        #expect(live.store.version == 0)
    }

    @Test(arguments: Transport.allCases)
    func aNullPayloadReadsAsNone(transport: Transport) throws {
        let live = try LiveServer(transport: transport)
        #expect(try live.post(#"{"type":"increase","payload":null}"#).status == 200)
        #expect(try live.post(#"{"type":"increase","payload":{}}"#).status == 200)
        #expect(live.store.state.counter == 2)
    }
}
