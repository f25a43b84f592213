import Foundation
import JSONPatch

/// Seeded random valid JSON texts with the value each stands for: nesting, numbers of every
/// form, escapes, `\u` escapes (surrogate pairs too), raw multi-byte UTF-8, random whitespace.
struct JSONTextGenerator {
    /// What a generated text stands for, independently of any parser.
    indirect enum Expected {
        case null
        case bool(Bool)
        case number(Double)
        case string([Unicode.Scalar])
        case array([Expected])
        case object([(String, Expected)])
    }

    private var random: SplitMix64
    /// The nesting depth of the last document.
    private(set) var lastDepth = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// A document and its value.
    mutating func document() -> (text: String, expected: Expected) {
        lastDepth = 0
        var text = whitespace()
        let expected = value(depth: 0, into: &text)
        text += whitespace()
        return (text, expected)
    }

    /// `bytes` with one random edit: a byte removed, a JSON-significant byte inserted, or one
    /// replaced.
    mutating func mutated(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let interesting = Array(#",:[]{}"\0-+.eE \#\u{7F}x/"#.utf8) + [0x00, 0x09, 0xC3, 0xFF]
        let position = Int(random.next() % UInt64(bytes.count + 1))
        let byte = interesting[Int(random.next() % UInt64(interesting.count))]
        switch random.next() % 3 {
        case 0 where position < bytes.count: bytes.remove(at: position)
        case 1 where position < bytes.count: bytes[position] = byte
        default: bytes.insert(byte, at: position)
        }
        return bytes
    }

    private mutating func value(depth: Int, into text: inout String) -> Expected {
        lastDepth = max(lastDepth, depth)
        let choice = depth >= 6 ? random.next() % 5 : random.next() % 8
        switch choice {
        case 0:
            text += "null"
            return .null
        case 1:
            let flag = random.next() % 2 == 0
            text += flag ? "true" : "false"
            return .bool(flag)
        case 2, 3:
            let literal = number()
            text += literal
            return .number(Double(literal) ?? .nan)
        case 4:
            return .string(string(into: &text))
        case 5, 6:
            text += "[" + whitespace()
            var items: [Expected] = []
            for index in 0..<Int(random.next() % 5) {
                if index > 0 { text += whitespace() + "," + whitespace() }
                items.append(value(depth: depth + 1, into: &text))
            }
            text += whitespace() + "]"
            return .array(items)
        default:
            text += "{" + whitespace()
            var members: [(String, Expected)] = []
            var names: Set<String> = []
            for _ in 0..<Int(random.next() % 5) {
                var nameText = ""
                let name = String(String.UnicodeScalarView(string(into: &nameText)))
                // Unique also by Swift's ==, as Foundation's dictionary needs them.
                guard names.insert(name).inserted else { continue }
                if !members.isEmpty { text += whitespace() + "," + whitespace() }
                text += nameText + whitespace() + ":" + whitespace()
                members.append((name, value(depth: depth + 1, into: &text)))
            }
            text += whitespace() + "}"
            return .object(members)
        }
    }

    /// A number literal of one of the grammar's forms, exactly representable enough to compare.
    private mutating func number() -> String {
        var literal = random.next() % 4 == 0 ? "-" : ""
        literal += random.next() % 5 == 0 ? "0" : String(1 + random.next() % 999_999_999)
        if random.next() % 2 == 0 { literal += "." + String(random.next() % 1_000_000) }
        if random.next() % 3 == 0 {
            literal += random.next() % 2 == 0 ? "e" : "E"
            literal += ["", "+", "-"][Int(random.next() % 3)]
            literal += String(random.next() % 20)
        }
        return literal
    }

    /// A string literal appended to `text`; returns its scalars.
    private mutating func string(into text: inout String) -> [Unicode.Scalar] {
        text += "\""
        var scalars: [Unicode.Scalar] = []
        let escapes: [(String, Unicode.Scalar)] = [
            ("\\\"", "\""), ("\\\\", "\\"), ("\\/", "/"), ("\\b", "\u{8}"), ("\\f", "\u{C}"),
            ("\\n", "\n"), ("\\r", "\r"), ("\\t", "\t"),
        ]
        let raw: [Unicode.Scalar] = ["a", "Z", "0", " ", "~", "é", "e", "\u{301}", "中", "😀", "\u{7F}", "\u{FFFD}", "\u{10FFFF}"]
        for _ in 0..<Int(random.next() % 8) {
            switch random.next() % 4 {
            case 0:
                let (written, scalar) = escapes[Int(random.next() % UInt64(escapes.count))]
                text += written
                scalars.append(scalar)
            case 1:
                // A \u escape of a BMP scalar (no surrogate), in either case of hex digits.
                var value = UInt32(random.next() % 0xFFFF)
                if (0xD800...0xDFFF).contains(value) { value -= 0x1000 }
                let hex = String(value, radix: 16)
                let padded = String(repeating: "0", count: 4 - hex.count) + hex
                text += "\\u" + (random.next() % 2 == 0 ? padded : padded.uppercased())
                scalars.append(Unicode.Scalar(value) ?? "?")
            case 2:
                // A surrogate pair for a scalar beyond the BMP.
                let value = 0x10000 + UInt32(random.next() % 0xFFFFF)
                let high = 0xD800 + ((value - 0x10000) >> 10)
                let low = 0xDC00 + ((value - 0x10000) & 0x3FF)
                text += "\\u" + String(high, radix: 16) + "\\u" + String(low, radix: 16, uppercase: true)
                scalars.append(Unicode.Scalar(value) ?? "?")
            default:
                let scalar = raw[Int(random.next() % UInt64(raw.count))]
                text.unicodeScalars.append(scalar)
                scalars.append(scalar)
            }
        }
        text += "\""
        return scalars
    }

    private mutating func whitespace() -> String {
        let blanks = [" ", "\t", "\n", "\r"]
        return (0..<Int(random.next() % 3)).map { _ in blanks[Int(random.next() % 4)] }.joined()
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same texts on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension JSON {
    /// Whether the parsed value is the one the generator wrote.
    func matchesExpected(_ expected: JSONTextGenerator.Expected) -> Bool {
        switch (self, expected) {
        case (.null, .null): return true
        case (.bool(let mine), .bool(let theirs)): return mine == theirs
        case (.number(let literal), .number(let value)): return Double(literal) == value
        case (.string(let mine), .string(let scalars)): return Array(mine.unicodeScalars) == scalars
        case (.array(let mine), .array(let theirs)):
            return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.matchesExpected($1) }
        case (.object(let mine), .object(let theirs)):
            return mine.count == theirs.count && theirs.allSatisfy { name, value in
                mine.members.first { $0.key.unicodeScalars.elementsEqual(name.unicodeScalars) }?.value.matchesExpected(value) == true
            }
        default: return false
        }
    }

    /// Whether the parsed value is what `JSONSerialization` read from the same text.
    func matchesFoundation(_ value: Any) -> Bool {
        switch self {
        case .null:
            return value is NSNull
        case .bool(let flag):
            return (value as? Bool) == flag
        case .number(let literal):
            guard let number = value as? NSNumber, let mine = Double(literal) else { return false }
            let theirs = number.doubleValue
            return mine == theirs || abs(mine - theirs) <= abs(mine) * 1e-12
        case .string(let text):
            return (value as? String).map { Array($0.unicodeScalars) == Array(text.unicodeScalars) } ?? false
        case .array(let items):
            guard let theirs = value as? [Any], theirs.count == items.count else { return false }
            return zip(items, theirs).allSatisfy { $0.matchesFoundation($1) }
        case .object(let object):
            guard let theirs = value as? [String: Any], theirs.count == object.count else { return false }
            return object.members.allSatisfy { member in
                theirs[member.key].map { member.value.matchesFoundation($0) } ?? false
            }
        }
    }
}

extension JSON {
    /// Whether a number in the value is too large for a `Double`.
    var hasNumberBeyondDouble: Bool {
        switch self {
        case .number(let literal): return Double(literal).map { !$0.isFinite } ?? true
        case .array(let items): return items.contains { $0.hasNumberBeyondDouble }
        case .object(let object): return object.members.contains { $0.value.hasNumberBeyondDouble }
        default: return false
        }
    }
}
