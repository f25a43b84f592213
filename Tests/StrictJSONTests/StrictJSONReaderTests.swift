import StrictJSON
import Testing

/// ``StrictJSONReader``: the tokens of a text, and the rules that refuse one.
@Suite struct StrictJSONReaderTests {
    /// The tokens of `text` as short words, or the error's kind and offset.
    private func tokens(_ text: String, names: StrictJSONReader.NameRule = .codePoints, depth: Int = 512) -> Result<[String], StrictJSONError> {
        Array(text.utf8).withUnsafeBufferPointer { (bytes) -> Result<[String], StrictJSONError> in
            var reader = StrictJSONReader(bytes, maximumDepth: depth, names: names)
            var words: [String] = []
            do throws(StrictJSONError) {
                while let token = try reader.next() {
                    switch token {
                    case .objectStart: words.append("{")
                    case .objectEnd: words.append("}")
                    case .arrayStart: words.append("[")
                    case .arrayEnd: words.append("]")
                    case .name(let name): words.append("name:\(name.text)")
                    case .string(let string): words.append("string:\(string.text)")
                    case .number(let literal): words.append("number:\(String(decoding: literal, as: UTF8.self))")
                    case .bool(let flag): words.append("\(flag)")
                    case .null: words.append("null")
                    }
                }
                return .success(words)
            } catch {
                return .failure(error)
            }
        }
    }

    @Test func tokensComeInOrderWithNamesStringsAndNumbersAsWritten() throws {
        #expect(try tokens(#" {"a" : [1, -0.5e+3, "x\u00e9\ud83d\ude00", true, false, null, {}], "b":{"c":[]}} "#).get() == [
            "{", "name:a", "[", "number:1", "number:-0.5e+3", "string:xé😀", "true", "false", "null", "{", "}", "]",
            "name:b", "{", "name:c", "[", "]", "}", "}",
        ])
        #expect(try tokens("0").get() == ["number:0"])
    }

    @Test(arguments: [
        ("", StrictJSONError(.endOfTextWhereValueExpected, at: 0)),
        ("[1,]", StrictJSONError(.trailingCommaInArray, at: 3)),
        (#"{"a":1,}"#, StrictJSONError(.expectedMemberName(afterComma: true), at: 7)),
        ("{1:2}", StrictJSONError(.expectedMemberName(afterComma: false), at: 1)),
        (#"{"a" 1}"#, StrictJSONError(.expectedColon, at: 5)),
        ("[1 2]", StrictJSONError(.expectedCommaOrEnd(closing: UInt8(ascii: "]")), at: 3)),
        ("01", StrictJSONError(.leadingZero, at: 1)),
        ("-", StrictJSONError(.missingIntegerDigit, at: 1)),
        ("1.", StrictJSONError(.missingFractionDigit, at: 2)),
        ("1e+", StrictJSONError(.missingExponentDigit, at: 3)),
        ("tru", StrictJSONError(.unexpectedByteWhereValueExpected(UInt8(ascii: "t")), at: 0)),
        ("[1]x", StrictJSONError(.unexpectedByteAfterValue(UInt8(ascii: "x")), at: 3)),
        ("\"a\tb\"", StrictJSONError(.controlCharacterInString(0x09), at: 2)),
        ("[\"open", StrictJSONError(.unterminatedString(openingQuote: 1), at: 6)),
        (#""\"#, StrictJSONError(.unterminatedEscape, at: 2)),
        (#""\x""#, StrictJSONError(.invalidEscape(UInt8(ascii: "x")), at: 2)),
        (#""\u12x4""#, StrictJSONError(.badUnicodeEscape, at: 5)),
        (#"[1, "\ud83d"]"#, StrictJSONError(.loneHighSurrogate, at: 5)),
        (#""\ud83d\u0041""#, StrictJSONError(.loneHighSurrogate, at: 1)),
        (#""\ude00""#, StrictJSONError(.loneLowSurrogate, at: 1)),
        (#"{"a":1,"a":2}"#, StrictJSONError(.duplicateName("a", earlier: "a"), at: 7)),
        (#"{"b":{"b":1},"b":2}"#, StrictJSONError(.duplicateName("b", earlier: "b"), at: 13)),
    ])
    func eachRuleIsNamedWhereItIsBroken(text: String, expected: StrictJSONError) {
        #expect(tokens(text) == .failure(expected), "\(text.debugDescription)")
    }

    @Test func invalidUTF8InAStringIsRefusedAtTheStringsStart() {
        let bytes: [UInt8] = [UInt8(ascii: "["), UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: "]")]
        let error = bytes.withUnsafeBufferPointer { (buffer) -> StrictJSONError? in
            do throws(StrictJSONError) {
                try StrictJSONReader.validate(buffer)
                return nil
            } catch {
                return error
            }
        }
        #expect(error == StrictJSONError(.invalidUTF8, at: 2))
    }

    @Test func namesThatAreCanonicallyEquivalentAreOneNameOnlyByThatRule() {
        let text = "{\"\\u00e9\":1,\"e\u{301}\":2}"
        #expect((try? tokens(text, names: .codePoints).get()) != nil)
        #expect(tokens(text, names: .canonicalEquivalence) == .failure(StrictJSONError(.duplicateName("e\u{301}", earlier: "\u{E9}"), at: 12)))
        // Escaped and plain spellings of one name are one name by either rule.
        #expect(tokens(#"{"a":1,"\u0061":2}"#) == .failure(StrictJSONError(.duplicateName("a", earlier: "a"), at: 7)))
    }

    @Test(arguments: [3, 15, 16, 17, 40, 2_000])
    func aRepeatedNameIsFoundInObjectsOfAnySize(count: Int) {
        let members = (0..<count).map { #""m\#($0)":\#($0)"# }
        let fine = "{" + members.joined(separator: ",") + "}"
        #expect((try? tokens(fine).get())?.count == 2 + 2 * count)
        let repeated = "{" + (members + [#""m\#(count / 2)":0"#]).joined(separator: ",") + "}"
        guard case .failure(let error) = tokens(repeated) else {
            Issue.record("accepted a repeated name among \(count)")
            return
        }
        #expect(error.kind == .duplicateName("m\(count / 2)", earlier: "m\(count / 2)"))
        // The same names in sibling objects are no repetition.
        #expect((try? tokens("[\(fine),\(fine)]").get()) != nil)
    }

    @Test func nestingIsBoundedAtTheLimitAlsoBeyondSixtyFourLevels() {
        for limit in [1, 64, 65, 512] {
            let fits = String(repeating: "[{\"a\":", count: limit / 2) + (limit % 2 == 1 ? "[]" : "0") + String(repeating: "}]", count: limit / 2)
            #expect((try? tokens(fits, depth: limit).get()) != nil, "limit \(limit)")
            let deep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
            #expect(tokens(deep, depth: limit) == .failure(StrictJSONError(.tooDeep(limit: limit), at: limit)))
        }
    }
}
