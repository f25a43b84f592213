/// Checks that a body is exactly one JSON text as RFC 8259 defines it, before it is decoded.
///
/// Foundation's parser is lenient where a client's mistake should be an error: it takes trailing
/// commas, guesses UTF-16 and UTF-32, and keeps the first of two equal keys. This one rejects all
/// of that: the grammar exactly (no trailing commas, no leading zeros, no comments, no control
/// characters in strings, nothing after the value), duplicate member names in an object (compared
/// after unescaping), and nesting deeper than ``maximumDepth``. The body must already be known to
/// be UTF-8: a NUL or any other byte outside the grammar is an error.
struct StrictJSONValidator {
    /// Why a body is not strict JSON, with the byte offset where that was found.
    struct Failure: Error, Equatable, CustomStringConvertible {
        let reason: String
        let offset: Int

        var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deeply arrays and objects may nest; deeper bodies are refused rather than parsed.
    static let maximumDepth = 512

    /// Throws the first violation found in `bytes`.
    static func validate(_ bytes: [UInt8]) throws(Failure) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in
            var validator = StrictJSONValidator(bytes: buffer)
            try validator.validateDocument()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func validateDocument() throws(Failure) {
        skipWhitespace()
        try value()
        skipWhitespace()
        if index < bytes.count {
            throw fail("unexpected \(describe(bytes[index])) after the JSON value")
        }
    }

    private mutating func value() throws(Failure) {
        guard index < bytes.count else { throw fail("the JSON text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): _ = try string(keepingText: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw fail("unexpected \(describe(bytes[index])) where a value was expected")
        }
    }

    private mutating func object() throws(Failure) {
        guard try open(closing: UInt8(ascii: "}")) else { return }
        // Compared as Swift compares them (canonical equivalence), as the decoder will: "\u00e9"
        // and "e\u0301" would become one key of a dictionary, one of the two values lost.
        var names: Set<String> = []
        repeat {
            guard peek == UInt8(ascii: "\"") else {
                throw fail(names.isEmpty ? "expected a member name in quotes" : "trailing comma or missing member name")
            }
            let nameOffset = index
            let name = try string(keepingText: true)
            let (inserted, earlier) = names.insert(name)
            guard inserted else {
                let sameText = earlier.utf8.elementsEqual(name.utf8)
                throw Failure(
                    reason: sameText
                        ? "duplicate member name \"\(name)\""
                        : "duplicate member name \"\(name)\" (the same name as \"\(earlier)\" once Unicode-normalized: decoding would keep only one of them)",
                    offset: nameOffset
                )
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            try value()
        } while try next(closing: UInt8(ascii: "}"), in: "an object")
    }

    private mutating func array() throws(Failure) {
        guard try open(closing: UInt8(ascii: "]")) else { return }
        repeat {
            if peek == UInt8(ascii: "]") {
                throw fail("trailing comma in an array")
            }
            try value()
        } while try next(closing: UInt8(ascii: "]"), in: "an array")
    }

    /// Enters the array or object at `index`; false if it is empty (then it is already left).
    private mutating func open(closing: UInt8) throws(Failure) -> Bool {
        depth += 1
        if depth > Self.maximumDepth {
            throw fail("arrays and objects nest deeper than \(Self.maximumDepth) levels")
        }
        index += 1
        skipWhitespace()
        guard peek == closing else { return true }
        index += 1
        depth -= 1
        return false
    }

    /// After an element: true at a comma (another element follows), false at `closing` (the
    /// container is left); anything else is an error.
    private mutating func next(closing: UInt8, in container: String) throws(Failure) -> Bool {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return true
        case closing:
            index += 1
            depth -= 1
            return false
        default:
            throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(container)")
        }
    }

    /// Checks a string; returns its unescaped text when `keepingText` (for member names).
    private mutating func string(keepingText: Bool) throws(Failure) -> String {
        index += 1  // opening quote
        let start = index
        var escaped: String.UnicodeScalarView? = nil
        var pendingHighSurrogate: UInt32? = nil
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                guard keepingText else { return "" }
                if var scalars = escaped {
                    if pendingHighSurrogate != nil { scalars.append("\u{FFFD}") }
                    return String(scalars)
                }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                if keepingText, escaped == nil {
                    escaped = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self).unicodeScalars
                }
                let unit = try escape()
                if keepingText {
                    append(unit, to: &escaped, pending: &pendingHighSurrogate)
                }
            case 0x00..<0x20:
                throw fail("control character \(describe(byte)) in a string (escape it)")
            default:
                if keepingText, escaped != nil {
                    // Copy the run of plain bytes up to the next quote or backslash.
                    let runStart = index
                    while index < bytes.count, bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "\""),
                        bytes[index] != UInt8(ascii: "\\")
                    {
                        index += 1
                    }
                    if pendingHighSurrogate != nil {
                        escaped?.append("\u{FFFD}")
                        pendingHighSurrogate = nil
                    }
                    escaped?.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self).unicodeScalars)
                } else {
                    index += 1
                }
            }
        }
        throw Failure(reason: "unterminated string", offset: start - 1)
    }

    /// Checks one escape sequence at `index` (a backslash) and returns the UTF-16 unit it stands for.
    private mutating func escape() throws(Failure) -> UInt32 {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return UInt32(byte)
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "u"):
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                    throw fail("\\u must be followed by four hex digits")
                }
                unit = unit << 4 | digit
                index += 1
            }
            return unit
        default:
            index -= 1
            throw fail("invalid escape \\\(describe(byte))")
        }
    }

    /// Adds a UTF-16 unit from an escape to a member name, pairing surrogates (a lone one reads
    /// as U+FFFD: JSON allows it, and it still names one member).
    private func append(_ unit: UInt32, to scalars: inout String.UnicodeScalarView?, pending: inout UInt32?) {
        if let high = pending {
            pending = nil
            if (0xDC00...0xDFFF).contains(unit), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)) {
                scalars?.append(scalar)
                return
            }
            scalars?.append("\u{FFFD}")
        }
        if (0xD800...0xDBFF).contains(unit) {
            pending = unit
        } else {
            scalars?.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
        }
    }

    private mutating func number() throws(Failure) {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, Self.isDigit(first) else { throw fail("a number needs digits") }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek, Self.isDigit(next) {
            throw fail("leading zero in a number")
        }
        skipDigits()
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek, Self.isDigit(digit) else { throw fail("digits expected after the decimal point") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek, Self.isDigit(digit) else { throw fail("digits expected in the exponent") }
            skipDigits()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= text.count, text.indices.allSatisfy({ bytes[index + $0] == text[$0] }) else {
            throw fail("unexpected \(describe(bytes[index])) where a value was expected")
        }
        index += text.count
    }

    private var peek: UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek, Self.isWhitespace(byte) { index += 1 }
    }

    /// JSON's whitespace: space, tab, line feed, carriage return (RFC 8259 §2).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private mutating func skipDigits() {
        while let byte = peek, Self.isDigit(byte) { index += 1 }
    }

    private func fail(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
