/// A strict RFC 8259 reader for the one shape a JOSE header or JWT claims set has: a JSON object.
///
/// It checks the whole text against the grammar (no trailing commas, no leading zeros, no control
/// characters or invalid UTF-8 in strings, nothing after the object, nesting at most
/// ``maximumDepth``) while ``next()`` hands out the top-level members one by one as slices of the
/// input (``StringSlice``, ``Value``) — no dictionary, no `Any`, no string per member — so reading
/// a token costs no allocation beyond the decoded bytes. Values that are not read (nested
/// objects, unknown claims) are only checked.
struct JSONObjectScanner {
    /// One step through the top-level object.
    enum Step {
        /// The next member, in order of appearance.
        case member(StringSlice, Value)
        /// The object ended and nothing but whitespace follows it.
        case end
        /// The text is not one JSON object (or the scan already ended).
        case malformed
    }

    /// How deeply arrays and objects may nest inside the top-level object.
    static let maximumDepth = 32

    private struct Malformed: Error {}

    private enum Position {
        case beforeObject, nextMember, finished
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private var depth = 1
    private var position = Position.beforeObject

    /// A scanner of `bytes`, which must be exactly one JSON object; read it with ``next()``.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        index = 0
    }

    /// The next top-level member, the end of the object, or `.malformed` — checking the whole
    /// text as it goes: `.end` comes only after the closing brace and trailing whitespace.
    mutating func next() -> Step {
        do {
            return try step()
        } catch {
            position = .finished
            return .malformed
        }
    }

    /// Calls `element` for each element of `array`, a value ``next()`` returned; false when an
    /// element is not a string.
    static func forEachString(
        inArray array: Slice<UnsafeBufferPointer<UInt8>>, _ element: (StringSlice) -> Void
    ) -> Bool {
        var scanner = JSONObjectScanner(array.base)
        scanner.index = array.startIndex + 1 // after "["
        scanner.skipWhitespace()
        if scanner.peek == UInt8(ascii: "]") { return true }
        while true {
            // The array was checked when it was scanned: only the kind of each element matters.
            guard let value = try? scanner.value(), case .string(let string) = value else { return false }
            element(string)
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: ",") else { return true }
            scanner.index += 1
            scanner.skipWhitespace()
        }
    }

    private mutating func step() throws(Malformed) -> Step {
        switch position {
        case .finished:
            throw Malformed()
        case .beforeObject:
            skipWhitespace()
            guard peek == UInt8(ascii: "{") else { throw Malformed() }
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return try finish()
            }
        case .nextMember:
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return try finish()
            }
            guard peek == UInt8(ascii: ",") else { throw Malformed() }
            index += 1
            skipWhitespace()
        }
        guard peek == UInt8(ascii: "\"") else { throw Malformed() }
        let name = try string()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw Malformed() }
        index += 1
        skipWhitespace()
        let value = try value()
        position = .nextMember
        return .member(name, value)
    }

    private mutating func finish() throws(Malformed) -> Step {
        skipWhitespace()
        guard index == bytes.count else { throw Malformed() }
        position = .finished
        return .end
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func value() throws(Malformed) -> Value {
        guard let byte = peek else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"): try container(closing: UInt8(ascii: "}"), members: true); return .object
        case UInt8(ascii: "["):
            let start = index
            try container(closing: UInt8(ascii: "]"), members: false)
            return .array(bytes[start..<index])
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw Malformed()
        }
    }

    private mutating func container(closing: UInt8, members: Bool) throws(Malformed) {
        depth += 1
        guard depth <= Self.maximumDepth + 1 else { throw Malformed() }
        index += 1
        skipWhitespace()
        if peek == closing {
            index += 1
            depth -= 1
            return
        }
        while true {
            if members {
                guard peek == UInt8(ascii: "\"") else { throw Malformed() }
                _ = try string()
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw Malformed() }
                index += 1
                skipWhitespace()
            }
            _ = try value()
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if peek == closing {
                index += 1
                depth -= 1
                return
            } else {
                throw Malformed()
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<(index + count)])
        else { throw Malformed() }
        index += count
    }

    private mutating func number() throws(Malformed) -> Slice<UnsafeBufferPointer<UInt8>> {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw Malformed() }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        return bytes[start..<index]
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while let byte = peek, isDigit(byte) { index += 1 }
    }

    /// Scans a string starting at its opening quote; returns the bytes between the quotes.
    private mutating func string() throws(Malformed) -> StringSlice {
        index += 1
        let start = index
        var hasEscapes = false
        var hasNonASCII = false
        while true {
            guard let byte = peek else { throw Malformed() }
            switch byte {
            case UInt8(ascii: "\""):
                let raw = bytes[start..<index]
                index += 1
                if hasNonASCII, !Self.isValidUTF8(raw) { throw Malformed() }
                return StringSlice(raw: raw, hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try escape()
            case 0x00..<0x20:
                throw Malformed()
            default:
                if byte >= 0x80 { hasNonASCII = true }
                index += 1
            }
        }
    }

    /// Checks one escape sequence at `index` (the backslash) and moves past it.
    private mutating func escape() throws(Malformed) {
        guard index + 1 < bytes.count else { throw Malformed() }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"),
             UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            guard let unit = checkedHexQuad(at: index + 2) else { throw Malformed() }
            index += 6
            if (0xDC00...0xDFFF).contains(unit) { throw Malformed() }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                      let low = checkedHexQuad(at: index + 2), (0xDC00...0xDFFF).contains(low)
                else { throw Malformed() }
                index += 6
            }
        default:
            throw Malformed()
        }
    }

    private func checkedHexQuad(at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count,
              bytes[start..<(start + 4)].allSatisfy({ Self.hexValue($0) != nil }) else { return nil }
        return Self.hexQuad(bytes[...], at: start)
    }

    private static func isValidUTF8(_ raw: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var iterator = raw.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
