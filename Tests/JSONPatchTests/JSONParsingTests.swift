import JSONPatch
import Testing

/// `JSON(parsing:)` and `canonicalBytes`: RFC 8259 exactly, numbers kept as written.
@Suite struct JSONParsingTests {
    @Test(arguments: ["0", "-0", "1e400", "-1E-400", "0.10", "12.50e+3", "100000000000000000000000000001", "1.0"])
    func numberLiteralsSurviveVerbatim(literal: String) throws {
        let value = try JSON(parsing: "[\(literal)]")
        #expect(value == .array([.number(literal)]))
        #expect(value.canonicalText == "[\(literal)]")
    }

    @Test func objectsComeOutWithMembersInCodePointOrder() throws {
        let value = try JSON(parsing: #"{"b":1,"a":{"z":true,"é":null,"Z":false},"":[]}"#)
        #expect(value.canonicalText == #"{"":[],"a":{"Z":false,"z":true,"é":null},"b":1}"#)
    }

    @Test func escapesAreReadAndOnlyTheNecessaryOnesWritten() throws {
        let value = try JSON(parsing: #"["\"\\\/\b\f\n\r\t\u0001\u00e9\ud83d\ude00 /"]"#)
        #expect(value == .array([.string("\"\\/\u{8}\u{C}\n\r\t\u{1}é😀 /")]))
        #expect(value.canonicalText == #"["\"\\/\b\f\n\r\t\u0001é😀 /"]"#)
        #expect(try JSON(parsing: value.canonicalBytes) == value)
    }

    @Test func precomposedAndDecomposedStringsAreDifferentValues() throws {
        let precomposed = try JSON(parsing: "\"\u{E9}\"")
        let decomposed = try JSON(parsing: "\"e\u{301}\"")
        #expect(precomposed != decomposed, "JSON compares code points, not Swift's canonical equivalence")
        let object = try JSON(parsing: "{\"\u{E9}\":1,\"e\u{301}\":2}")
        guard case .object(let members) = object else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 2)
    }

    @Test func whitespaceAroundTokensIsAccepted() throws {
        let value = try JSON(parsing: " \t\r\n{ \"a\" : [ 1 , 2 ] } \n")
        #expect(value.canonicalText == #"{"a":[1,2]}"#)
    }

    @Test(arguments: [
        "", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "1e", "+1", "[1 2]", "{\"a\" 1}", "{1:2}",
        "\"tab\there\"", "\"\\x\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\u12\"", "tru", "nul", "[1]x", "\"open",
        "{\"a\":1,\"a\":2}", "NaN", "Infinity", "[", "{",
    ])
    func malformedTextsAreRefused(text: String) {
        #expect(throws: JSONPatchError.self, "\(text)") { try JSON(parsing: text) }
        do {
            _ = try JSON(parsing: text)
        } catch {
            #expect(error.code == .malformedJSON)
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONPatchError.self) { try JSON(parsing: [UInt8(ascii: "\""), 0xC3, UInt8(ascii: "\"")]) }
        #expect(throws: JSONPatchError.self) { try JSON(parsing: [UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]) }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        let fine = String(repeating: "[", count: JSON.maximumDepth) + String(repeating: "]", count: JSON.maximumDepth)
        _ = try JSON(parsing: fine)
        let deep = "[" + fine + "]"
        #expect(throws: JSONPatchError.self) { try JSON(parsing: deep) }
    }

    @Test func testEqualityComparesNumbersByValue() throws {
        let pairs: [(String, String, Bool)] = [
            ("1", "1.0", true), ("1", "10e-1", true), ("0", "-0", true), ("0.001", "1e-3", true),
            ("100", "1E2", true), ("1e400", "1e401", false), ("100000000000000000001", "100000000000000000000", false),
            ("-1", "1", false), ("12.5", "125e-1", true), ("0.0", "0e10", true),
        ]
        for (left, right, equal) in pairs {
            #expect(JSON.number(left).matches(.number(right)) == equal, "\(left) vs \(right)")
            #expect((JSON.number(left) == .number(right)) == (left == right), "== is exact: \(left) vs \(right)")
        }
    }

    @Test func objectMembersCanBeSetReadAndRemoved() {
        var object = JSONObject()
        object["b"] = 2
        object["a"] = 1
        object["c"] = nil
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 1)
        #expect(object.removeValue(forKey: "a") == 1)
        #expect(object.removeValue(forKey: "a") == nil)
        object["b"] = nil
        #expect(object.count == 0)
    }
}
