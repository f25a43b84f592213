@testable import AccessControl
import Foundation
import JSONPatch
@testable import ReMVVMServer
import Testing

/// The three users of the one strict JSON reader — `JSON(parsing:)` (JSON Patch), the body
/// validator of `POST /actions` and the JWT object scanner — against Foundation's
/// `JSONSerialization` on seeded random valid texts, and against a corpus of invalid ones.
@Suite struct StrictJSONAgreementTests {
    @Test(arguments: [1, 2, 3, 4])
    func generatedValidJSONIsReadAsFoundationReadsIt(seed: UInt64) throws {
        var generator = JSONTextGenerator(seed: seed)
        for round in 0..<400 {
            let (text, expected) = generator.document()
            let bytes = Array(text.utf8)
            let parsed = try JSON(parsing: bytes)
            #expect(parsed.matchesExpected(expected), "seed \(seed) round \(round): \(text)")
            let foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
            #expect(parsed.matchesFoundation(foundation), "seed \(seed) round \(round): \(text)")
            #expect(throws: Never.self) { try StrictJSONValidator.validate(bytes) }
            // The JWT reader sees it as a claim's value (within its nesting limit).
            if generator.lastDepth < JSONObjectScanner.maximumDepth {
                #expect(Self.scannerAccepts(Array(#"{"v":\#(text)}"#.utf8)), "seed \(seed) round \(round): \(text)")
            }
        }
    }

    @Test(arguments: [11, 12, 13, 14])
    func aMutatedTextIsAcceptedOnlyWhenFoundationReadsTheSameValue(seed: UInt64) throws {
        var generator = JSONTextGenerator(seed: seed)
        var accepted = 0
        for round in 0..<600 {
            let bytes = generator.mutated(Array(generator.document().text.utf8))
            let description = String(decoding: bytes, as: UTF8.self)
            let parsed = try? JSON(parsing: bytes)
            let validated = Result { () throws(StrictJSONValidator.Failure) in try StrictJSONValidator.validate(bytes) }
            guard let parsed else {
                #expect((try? validated.get()) == nil, "seed \(seed) round \(round): \(description)")
                continue
            }
            accepted += 1
            // Foundation refuses numbers beyond Double's range (an edit can make `1e6789`); the
            // grammar has no such limit, and JSON Patch keeps the literal.
            if let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) {
                #expect(parsed.matchesFoundation(foundation), "seed \(seed) round \(round): \(description)")
            } else {
                #expect(parsed.hasNumberBeyondDouble, "seed \(seed) round \(round): \(description)")
            }
            if case .failure(let failure) = validated {
                // Only one rule differs: the validator also refuses canonically equal names.
                #expect(failure.reason.hasPrefix("duplicate member name"), "seed \(seed) round \(round): \(description)")
            }
        }
        #expect(accepted > 0)
    }

    /// Texts every reader refuses, each as a member's value of an object so that the JWT
    /// scanner (which reads objects only) sees the same bytes.
    static let invalidCorpus: [(String, [UInt8])] = [
        ("a trailing comma in an array", Array(#"{"a":[1,2,]}"#.utf8)),
        ("a trailing comma in an object", Array(#"{"a":{"b":1,}}"#.utf8)),
        ("a lone high surrogate", Array(#"{"a":"\ud83d"}"#.utf8)),
        ("a lone low surrogate", Array(#"{"a":"\ude00x"}"#.utf8)),
        ("a high surrogate before a non-surrogate", Array(#"{"a":"\ud83d\u0041"}"#.utf8)),
        ("a leading zero", Array(#"{"a":012}"#.utf8)),
        ("a negative leading zero", Array(#"{"a":-01}"#.utf8)),
        ("a raw tab in a string", Array("{\"a\":\"x\ty\"}".utf8)),
        ("a raw NUL in a string", Array("{\"a\":\"x".utf8) + [0] + Array("\"}".utf8)),
        ("a raw line feed in a name", Array("{\"a\nb\":1}".utf8)),
        ("nesting 513 deep", Array(("{\"a\":" + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}").utf8)),
        ("a repeated name", Array(#"{"a":1,"a":2}"#.utf8)),
        ("a repeated name spelled with an escape", Array(#"{"a":1,"\u0061":2}"#.utf8)),
        ("a repeated name in a nested object", Array(#"{"a":{"b":1,"b":1}}"#.utf8)),
        ("a byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)),
        ("a text cut short", Array(#"{"a":[1,2"#.utf8)),
        ("a text cut inside a string", Array(#"{"a":"abc"#.utf8)),
        ("a text cut inside an escape", Array(#"{"a":"\u00"#.utf8)),
        ("invalid UTF-8", Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
        ("an overlong UTF-8 encoding", Array(#"{"a":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)),
        ("a comment", Array(#"{"a":1 /* no */}"#.utf8)),
        ("single quotes", Array(#"{"a":'x'}"#.utf8)),
        ("NaN", Array(#"{"a":NaN}"#.utf8)),
        ("a plus sign", Array(#"{"a":+1}"#.utf8)),
        ("a bare decimal point", Array(#"{"a":1.}"#.utf8)),
        ("an empty exponent", Array(#"{"a":1e}"#.utf8)),
        ("an unknown escape", Array(#"{"a":"\x"}"#.utf8)),
        ("bytes after the value", Array(#"{"a":1}x"#.utf8)),
        ("two values", Array(#"{"a":1}{}"#.utf8)),
        ("an empty text", []),
    ]

    @Test(arguments: invalidCorpus.map(\.0))
    func everyReaderRefusesTheInvalidCorpus(name: String) throws {
        let bytes = try #require(Self.invalidCorpus.first { $0.0 == name }?.1)
        #expect(throws: JSONPatchError.self) { try JSON(parsing: bytes) }
        #expect(throws: StrictJSONValidator.Failure.self) { try StrictJSONValidator.validate(bytes) }
        #expect(!Self.scannerAccepts(bytes))
    }

    @Test func theJWTReaderRefusesARepeatedUnknownClaim() throws {
        let repeats = Array(#"{"x":1,"x":2}"#.utf8).withUnsafeBufferPointer { bytes -> Bool in
            var scanner = JSONObjectScanner(bytes)
            _ = scanner.next()
            guard case .malformed = scanner.next() else { return false }
            return scanner.repeatsAName
        }
        #expect(repeats)
    }

    /// Whether the JWT scanner reads `bytes` to its end.
    static func scannerAccepts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONObjectScanner(buffer)
            while true {
                switch scanner.next() {
                case .member: continue
                case .end: return true
                case .malformed: return false
                }
            }
        }
    }
}
