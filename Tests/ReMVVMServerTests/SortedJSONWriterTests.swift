import Foundation
@testable import ReMVVMServer
import Testing

/// ``SortedJSONWriter`` writes what `JSONEncoder` (``JSONCoding/encoder``) writes, byte for byte:
/// every case is encoded by both and compared; what it leaves to `JSONEncoder` is said so.
struct SortedJSONWriterTests {
    /// The reference: Foundation's bytes.
    private func foundation<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        Array(try JSONCoding.encoder.encode(value))
    }

    private func expectSameBytes<Value: Encodable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try SortedJSONWriter.encode(value)
        let expected = try foundation(value)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
        #expect(try JSONCoding.encode(value) == expected, sourceLocation: sourceLocation)
    }

    private func expectLeftToFoundation<Value: Encodable>(_ value: Value, structural: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(sourceLocation: sourceLocation) {
            try SortedJSONWriter.encode(value)
        } throws: { error in
            (error as? SortedJSONWriter.Unsupported)?.isStructural == structural
        }
        #expect(try JSONCoding.encode(value) == foundation(value), sourceLocation: sourceLocation)
        // Again, now that a structural failure has left the type to `JSONEncoder` for good.
        #expect(try JSONCoding.encode(value) == foundation(value), sourceLocation: sourceLocation)
    }

    struct Scalars: Codable {
        var bool = true, no = false
        var int = Int.min, int8 = Int8.min, int16 = Int16.max, int32 = Int32.min, int64 = Int64.max
        var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16(0), uint32 = UInt32.max, uint64 = UInt64.max
        var zero = 0, negative = -1
        var text = "plain"
        var nothing: String? = nil
        var something: Int? = 7
    }

    @Test func scalarsOfEveryWidth() throws {
        try expectSameBytes(Scalars())
        for value in [0, 1, 9, 10, 99, 100, -9, -10, 1_234_567_890, Int.max, Int.min] {
            try expectSameBytes(value)
            try expectSameBytes([value])
        }
    }

    @Test(arguments: [
        0.0, -0.0, 1.0, -1.0, 0.1, 1.5, 100.0, 1e15, 1e16, 1e20, 1e21, 1e22, 1e-5, 1e-7, 123.456e300,
        Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, .pi, 2.0 / 3.0,
    ])
    func doublesAndFloats(value: Double) throws {
        try expectSameBytes(value)
        try expectSameBytes(["value": value])
        try expectSameBytes([value, -value])
        if Float(value).isFinite {
            try expectSameBytes(Float(value))
            try expectSameBytes([Float(value)])
        }
    }

    @Test func nonFiniteNumbersAreLeftToFoundationWhichRefusesThem() throws {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: SortedJSONWriter.Unsupported.self) { try SortedJSONWriter.encode(["x": value]) }
            #expect(throws: EncodingError.self) { try JSONCoding.encode(["x": value]) }
        }
    }

    @Test func stringsAreEscapedAsFoundationEscapesThem() throws {
        var everyControl = ""
        for scalar in 0..<0x20 { everyControl.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        for text in ["", "a", "quote \" backslash \\ slash / </script>", everyControl, "\u{7F}", "é ünïcödé 😀 \u{2028}\u{2029}", "tab\tnew\nline\r"] {
            try expectSameBytes(text)
            try expectSameBytes(["key": text])
            try expectSameBytes([text])
        }
    }

    @Test func keysAreSortedByTheirUTF8Bytes() throws {
        let keys = ["b", "a", "B", "A", "aa", "a0", "_", "é", "z", "Z", "10", "9", "", "😀", "ab", "a b"]
        try expectSameBytes(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
        try expectSameBytes([3: "three", 1: "one", 20: "twenty", -4: "minus four"])
        try expectSameBytes([String: Int]())
        try expectSameBytes([[String: [String: Int]]](repeating: ["y": ["b": 1, "a": 2], "x": [:]], count: 3))
    }

    struct Nested: Codable {
        struct Inner: Codable {
            var zeta = [1, 2, 3]
            var alpha: [String: Bool] = ["off": false, "on": true]
            var middle: Inner2? = Inner2()
        }
        struct Inner2: Codable { var y = "y", x = "x" }
        var items = [Inner(), Inner(middle: nil)]
        var empty: [Int] = []
        var emptyObject: [String: Int] = [:]
        var matrix = [[1, 2], [], [3]]
        var date = Date(timeIntervalSinceReferenceDate: 1234.5)
        var data = Data([0, 1, 2, 250, 255])
        var url = URL(string: "https://example.com/a/b?c=d")!
        var decimal = Decimal(string: "12.340")!
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    }

    @Test func nestedValuesAndFoundationTypes() throws {
        try expectSameBytes(Nested())
        try expectSameBytes([Nested(), Nested()])
        try expectSameBytes(Optional<Int>.none)
        try expectSameBytes(Data())
    }

    enum Shape: Codable {
        case circle(radius: Double)
        case square(Double, label: String)
        case empty
    }

    enum Kind: String, Codable { case first, second }

    @Test func enumsWithAssociatedValuesUseNestedContainers() throws {
        try expectSameBytes([Shape.circle(radius: 2), .square(3, label: "s"), .empty])
        try expectSameBytes(["kinds": [Kind.second, .first]])
    }

    /// Containers used in ways synthesized code does not: asked for twice, nested ones written
    /// in turn, a key written twice, nothing encoded.
    struct Unusual: Encodable {
        enum Keys: String, CodingKey { case b, a, c, d }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode(1, forKey: .b)
            var again = encoder.container(keyedBy: Keys.self)
            try again.encode(2, forKey: .a)
            try first.encode(3, forKey: .b)  // the last value of a key stays
            var nested = first.nestedUnkeyedContainer(forKey: .c)
            try nested.encode("x")
            var deeper = nested.nestedContainer(keyedBy: Keys.self)
            try deeper.encode(true, forKey: .d)
            try nested.encode("y")  // finishes `deeper`
            try first.encode(Nothing(), forKey: .d)
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func containersAskedForAgainAndWrittenInTurn() throws {
        try expectSameBytes(Unusual())
        try expectSameBytes([Nothing()])
    }

    class Base: Encodable { var base = 1 }
    final class Derived: Base {
        var own = 2
        enum Keys: CodingKey { case own }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(own, forKey: .own)
            try super.encode(to: container.superEncoder())
        }
    }

    /// A container written to after a later sibling started: `JSONEncoder` allows it, this writer
    /// leaves it to `JSONEncoder`.
    struct Interleaved: Encodable {
        enum Keys: CodingKey { case one, two }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var one = container.nestedUnkeyedContainer(forKey: .one)
            var two = container.nestedUnkeyedContainer(forKey: .two)
            try two.encode(2)
            try one.encode(1)
        }
    }

    @Test func whatItDoesNotFollowIsLeftToFoundation() throws {
        try expectLeftToFoundation(Derived(), structural: true)
        try expectLeftToFoundation(Interleaved(), structural: true)
        try expectLeftToFoundation(["needs \"escaping\"": 1], structural: true)
        try expectLeftToFoundation(["b": 2, "needs \"escaping\"": 1, "a": 3, "\n": 4], structural: true)
        // Nothing encoded at the top: JSONEncoder refuses it, with its own error.
        #expect(throws: SortedJSONWriter.Unsupported.self) { try SortedJSONWriter.encode(Nothing()) }
        #expect(throws: EncodingError.self) { try JSONCoding.encode(Nothing()) }
    }

    /// Random trees of objects, arrays and scalars, with keys in random order.
    indirect enum Tree: Encodable {
        case object([(String, Tree)]), array([Tree]), text(String), number(Double), integer(Int), flag(Bool), null

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .object(let members):
                var container = encoder.container(keyedBy: Key.self)
                for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
            case .array(let elements):
                var container = encoder.unkeyedContainer()
                for element in elements { try container.encode(element) }
            case .text(let text): var container = encoder.singleValueContainer(); try container.encode(text)
            case .number(let number): var container = encoder.singleValueContainer(); try container.encode(number)
            case .integer(let integer): var container = encoder.singleValueContainer(); try container.encode(integer)
            case .flag(let flag): var container = encoder.singleValueContainer(); try container.encode(flag)
            case .null: var container = encoder.singleValueContainer(); try container.encodeNil()
            }
        }

        static func random(depth: Int, using generator: inout some RandomNumberGenerator) -> Tree {
            let keys = ["id", "name", "items", "a", "b", "ab", "Z", "é", "x1", "x10", "x2", ""]
            switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &generator) {
            case 0: return .text(String((0..<Int.random(in: 0..<6, using: &generator)).map { _ in "ab\"\\/\n é😀".randomElement(using: &generator)! }))
            case 1: return .number(Double.random(in: -1e6...1e6, using: &generator).rounded() / 8)
            case 2: return .integer(Int.random(in: Int.min...Int.max, using: &generator))
            case 3: return .flag(Bool.random(using: &generator))
            case 4: return .null
            case 5:
                return .object((0..<Int.random(in: 0..<6, using: &generator)).map { _ in
                    (keys.randomElement(using: &generator)!, random(depth: depth - 1, using: &generator))
                })
            default:
                return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in random(depth: depth - 1, using: &generator) })
            }
        }
    }

    @Test func randomTreesMatchFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            try expectSameBytes(Tree.random(depth: 4, using: &generator))
        }
    }
}
