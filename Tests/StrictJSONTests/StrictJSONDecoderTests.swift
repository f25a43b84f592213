import Foundation
import StrictJSON
import Testing

/// ``StrictJSONDecoder`` side by side with Foundation's `JSONDecoder`: the same value, or the same
/// `DecodingError` case (and type) at the same coding path, for each row.
@Suite struct StrictJSONDecoderTests {
    static let agreeing: [AgreementCase] = [
        // Objects, keys, nesting.
        AgreementCase("a flat object", Login.self, #"{"firstName":"Ada","lastName":"Lovelace"}"#),
        AgreementCase("members in any order, blanks between", Login.self, #" { "lastName" : "L" , "firstName" : "A" } "#),
        AgreementCase("an unknown member is ignored", Login.self, #"{"firstName":"A","lastName":"L","age":3}"#),
        AgreementCase("a missing key", Login.self, #"{"firstName":"Ada"}"#),
        AgreementCase("null for a required string", Login.self, #"{"firstName":null,"lastName":"L"}"#),
        AgreementCase("a number for a string", Login.self, #"{"firstName":1,"lastName":"L"}"#),
        AgreementCase("an array where an object goes", Login.self, #"[1]"#),
        AgreementCase("null where an object goes", Login.self, #"null"#),
        AgreementCase("a string where an object goes", Login.self, #""x""#),
        AgreementCase("a nested object and array", Order.self,
                      #"{"customer":{"firstName":"A","lastName":"B"},"items":[{"name":"x","count":2}],"note":"n","tags":{"a":1}}"#),
        AgreementCase("a missing key inside an array element", Order.self,
                      #"{"customer":{"firstName":"A","lastName":"B"},"items":[{"name":"x","count":2},{"name":"y"}]}"#),
        AgreementCase("a wrong type deep inside", Order.self,
                      #"{"customer":{"firstName":"A","lastName":"B"},"items":[{"name":"x","count":"2"}]}"#),
        AgreementCase("null for a nested object", Order.self, #"{"customer":null,"items":[]}"#),
        AgreementCase("an object for an array", Order.self, #"{"customer":{"firstName":"A","lastName":"B"},"items":{}}"#),
        AgreementCase("a nested key missing", Order.self, #"{"customer":{"firstName":"A"},"items":[]}"#),
        // Optionals.
        AgreementCase("an optional absent", Order.self, #"{"customer":{"firstName":"A","lastName":"B"},"items":[]}"#),
        AgreementCase("an optional null", Order.self, #"{"customer":{"firstName":"A","lastName":"B"},"items":[],"note":null}"#),
        AgreementCase("an optional of the wrong type", Order.self, #"{"customer":{"firstName":"A","lastName":"B"},"items":[],"note":5}"#),
        AgreementCase("an optional Bool absent", Flags.self, #"{"on":true}"#),
        AgreementCase("an optional Bool null", Flags.self, #"{"on":false,"maybe":null}"#),
        AgreementCase("an optional Bool of the wrong type", Flags.self, #"{"on":false,"maybe":"yes"}"#),
        AgreementCase("optionals in an array", [Int?].self, #"[1,null,3]"#),
        AgreementCase("a top-level null as an optional", Int?.self, #"null"#),
        // Bool.
        AgreementCase("a Bool", Flags.self, #"{"on":true,"maybe":false}"#),
        AgreementCase("a number for a Bool", Flags.self, #"{"on":1}"#),
        AgreementCase("null for a Bool", Flags.self, #"{"on":null}"#),
        AgreementCase("a string for a Bool", Bool.self, #""true""#),
        // Integers.
        AgreementCase("every integer width", Widths.self,
                      #"{"int":-9223372036854775808,"int8":-128,"int16":-32768,"int32":-2147483648,"int64":9223372036854775807,"uint":18446744073709551615,"uint8":255,"uint16":65535,"uint32":4294967295,"uint64":0}"#),
        AgreementCase("an integer written with an exponent", Int.self, #"1e2"#),
        AgreementCase("an integer written with a zero fraction", Int.self, #"100.0"#),
        AgreementCase("an integer written as a negative exponent of a larger one", Int.self, #"1000e-1"#),
        AgreementCase("a large integer with an exponent", Int64.self, #"9e18"#),
        AgreementCase("negative zero as an Int", Int.self, #"-0"#),
        AgreementCase("a string for an Int", Int.self, #""1""#),
        AgreementCase("null for an Int8 in an array", [Int8].self, #"[1,null]"#),
        AgreementCase("a Bool for a UInt", UInt.self, #"true"#),
        // Floating point.
        AgreementCase("a Double and a Float", Reals.self, #"{"double":0.1,"float":3.25}"#),
        AgreementCase("an integer as a Double", Double.self, #"12345678901234567890"#),
        AgreementCase("an exponent as a Double", Double.self, #"-1.5E-3"#),
        AgreementCase("the smallest subnormal Double", Double.self, #"5e-324"#),
        AgreementCase("zero with an exponent", Double.self, #"0e400"#),
        AgreementCase("a string for a Double", Double.self, #""1.5""#),
        AgreementCase("null for a Float", Reals.self, #"{"double":1,"float":null}"#),
        // Strings.
        AgreementCase("escapes", String.self, #""a\"b\\c\/d\b\f\n\r\t\u0041""#),
        AgreementCase("a surrogate pair escape", String.self, #""\ud83d\ude00""#),
        AgreementCase("non-ASCII as written", String.self, #""Zażółć gęślą jaźń 日本 😀""#),
        AgreementCase("an escaped key", Login.self, #"{"first\u004eame":"A","lastName":"L"}"#),
        AgreementCase("a key in another normalization form", [String: Int].self, #"{"e\u0301":1}"#),
        AgreementCase("a key among many members (looked up by hashing)", Login.self,
                      #"{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m17":17,"m18":18,"m19":19,"lastName":"L","firstName":"F"}"#),
        AgreementCase("a key missing among many members", Login.self, #"{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m17":17,"m18":18,"m19":19,"lastName":"L"}"#),
        AgreementCase("an ASCII key found under a canonically equal name", Kelvin.self, #"{"\u212A":5}"#),
        AgreementCase("the same among many members", Kelvin.self, #"{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m17":17,"m18":18,"m19":19,"\u212A":5}"#),
        // Dictionaries.
        // (One member each where the value is printed: a dictionary's order is its own.)
        AgreementCase("a dictionary of strings to Ints", [String: Int].self, #"{"a":1}"#),
        AgreementCase("a dictionary with a wrong value", [String: Int].self, #"{"a":1,"b":"x"}"#),
        AgreementCase("a dictionary with a numeric key", [String: Int].self, #"{"2":"x"}"#),
        AgreementCase("a dictionary keyed by Int", [Int: String].self, #"{"1":"a"}"#),
        AgreementCase("a dictionary keyed by Int with a bad key", [Int: String].self, #"{"one":"a"}"#),
        AgreementCase("a dictionary of nested objects", [String: Login].self, #"{"x":{"firstName":"A"}}"#),
        AgreementCase("an array for a dictionary", [String: Int].self, #"[]"#),
        // Enums with raw values.
        AgreementCase("enums with raw values", Paint.self, #"{"color":"red","level":2}"#),
        AgreementCase("an unknown string raw value", Paint.self, #"{"color":"blue","level":2}"#),
        AgreementCase("an unknown integer raw value", Paint.self, #"{"color":"red","level":3}"#),
        AgreementCase("a string for an integer raw value", Paint.self, #"{"color":"red","level":"2"}"#),
        // Arrays and containers.
        AgreementCase("an array of arrays", [[Int]].self, #"[[1,2],[],[3]]"#),
        AgreementCase("a wrong element type", [[Int]].self, #"[[1,2],[true]]"#),
        AgreementCase("null where an array goes", [Int].self, #"null"#),
        AgreementCase("nested containers and their paths", Walker.self, #"{"inner":{"list":[1,2,3]},"count":2}"#),
        AgreementCase("an unkeyed container read past its end", Walker.self, #"{"inner":{"list":[1]},"count":2}"#),
        AgreementCase("a nested keyed container missing", Walker.self, #"{"count":2}"#),
        AgreementCase("a nested keyed container null", Walker.self, #"{"inner":null,"count":0}"#),
        AgreementCase("a nested unkeyed container of the wrong type", Walker.self, #"{"inner":{"list":"x"},"count":0}"#),
        // superDecoder.
        AgreementCase("superDecoder and superDecoder(forKey:)", Layered.self,
                      #"{"super":{"firstName":"A","lastName":"B"},"extra":{"firstName":"C","lastName":"D"},"list":[7]}"#),
        AgreementCase("superDecoder(forKey:) of an absent key reads null", Layered.self,
                      #"{"super":{"firstName":"A","lastName":"B"},"list":[7]}"#),
        AgreementCase("superDecoder() of an absent super", Layered.self, #"{"list":[7]}"#),
        AgreementCase("an unkeyed superDecoder past the end", Layered.self, #"{"super":{"firstName":"A","lastName":"B"},"list":[]}"#),
    ]

    /// Numbers a type cannot hold, and the path of each: `JSONDecoder` reports them at the root
    /// ("The given data was not valid JSON."), the strict decoder where the number is.
    static let notFitting: [(AgreementCase, [String])] = [
        (AgreementCase("300 as an Int8", Item.self, #"{"name":"x","count":300}"#), ["count"]),
        (AgreementCase("-129 as an Int8", [Int8].self, #"[1,-129]"#), ["Index 1#1"]),
        (AgreementCase("256 as a UInt8", UInt8.self, #"256"#), []),
        (AgreementCase("-1 as a UInt", [String: UInt].self, #"{"a":-1}"#), ["a"]),
        (AgreementCase("2^63 as an Int", Widths.self, #"{"int":9223372036854775808}"#), ["int"]),
        (AgreementCase("2^64 as a UInt64", UInt64.self, #"18446744073709551616"#), []),
        (AgreementCase("65536 as a UInt16", [String: UInt16].self, #"{"b":65536}"#), ["b"]),
        (AgreementCase("a fraction as an Int", Int.self, #"1.5"#), []),
        (AgreementCase("a small exponent as an Int", Int.self, #"15e-1"#), []),
        (AgreementCase("1e400 as a Double", Reals.self, #"{"double":1e400,"float":1}"#), ["double"]),
        (AgreementCase("-1e400 as a Double", Double.self, #"-1e400"#), []),
        (AgreementCase("1e-400 as a Double", Double.self, #"1e-400"#), []),
        (AgreementCase("1e39 as a Float", Reals.self, #"{"double":1,"float":1e39}"#), ["float"]),
    ]

    @Test(arguments: notFitting)
    func aNumberThatDoesNotFitIsDataCorruptedAtItsPath(_ row: AgreementCase, path: [String]) {
        let (strict, foundation) = row.run()
        #expect(strict == .error("dataCorrupted", path: path), "\(row.name)")
        #expect(foundation == .error("dataCorrupted", path: []) || foundation == .error("dataCorrupted", path: path), "\(row.name): \(foundation)")
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, StrictJSONError(.duplicateName("a", earlier: "a"), at: 7)),
        (#"{"\u00e9":1,"e\u0301":2}"#, StrictJSONError(.duplicateName("e\u{301}", earlier: "\u{E9}"), at: 12)),
        (#"{"firstName":"A",}"#, StrictJSONError(.expectedMemberName(afterComma: true), at: 17)),
        (#"{"firstName":"A"} {"#, StrictJSONError(.unexpectedByteAfterValue(UInt8(ascii: "{")), at: 18)),
    ])
    func aTextTheReaderRefusesThrowsItsErrorBeforeAnythingDecodes(_ text: String, error: StrictJSONError) {
        #expect(throws: error) { try StrictJSONDecoder().decode(Login.self, from: Array(text.utf8)) }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        var decoder = StrictJSONDecoder()
        decoder.maximumDepth = 3
        #expect(throws: StrictJSONError(.tooDeep(limit: 3), at: 3)) { try decoder.decode([[[[Int]]]].self, from: Array("[[[[1]]]]".utf8)) }
        #expect(try decoder.decode([[[Int]]].self, from: Array("[[[1]]]".utf8)) == [[[1]]])
    }

    @Test func userInfoReachesTheDecodableTypes() throws {
        struct Reader: Decodable {
            let seen: String?
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] as? String  // a non-empty literal key
            }
        }
        var decoder = StrictJSONDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] = "acme"  // a non-empty literal key
        #expect(try decoder.decode(Reader.self, from: Array("{}".utf8)).seen == "acme")
    }

    @Test(arguments: agreeing)
    func theStrictDecoderAgreesWithFoundation(_ row: AgreementCase) {
        let (strict, foundation) = row.run()
        #expect(strict == foundation, "\(row.name)")
    }
}
