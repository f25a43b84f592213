extension StrictJSONReader {
    /// A string starting at its opening quote: escapes, surrogate pairs and UTF-8 checked.
    mutating func string() throws(StrictJSONError) -> JSONString {
        let quote = offset
        offset += 1
        let start = offset
        var hasEscapes = false
        var isASCII = true
        while offset < bytes.count {
            let byte = bytes[offset]
            // The common bytes first: printable ASCII that is neither a quote nor a backslash.
            if byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                offset += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                let raw = bytes[start..<offset]
                if !isASCII, !Self.isValidUTF8(raw) { throw StrictJSONError(.invalidUTF8, at: start) }
                offset += 1
                return JSONString(raw: raw, hasEscapes: hasEscapes, isASCII: isASCII)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try escape()
            case 0x00..<0x20:
                throw fail(.controlCharacterInString(byte))
            default:
                isASCII = false
                offset += 1
            }
        }
        throw StrictJSONError(.unterminatedString(openingQuote: quote), at: offset)
    }

    /// Checks one escape sequence at ``offset`` (its backslash) and moves past it.
    private mutating func escape() throws(StrictJSONError) {
        let backslash = offset
        offset += 1
        guard let letter = peek else { throw fail(.unterminatedEscape) }
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"),
             UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            offset += 1
        case UInt8(ascii: "u"):
            offset += 1
            let unit = try hexQuad()
            if (0xDC00...0xDFFF).contains(unit) { throw StrictJSONError(.loneLowSurrogate, at: backslash) }
            guard (0xD800...0xDBFF).contains(unit) else { return }
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                throw StrictJSONError(.loneHighSurrogate, at: backslash)
            }
            offset += 2
            guard (0xDC00...0xDFFF).contains(try hexQuad()) else { throw StrictJSONError(.loneHighSurrogate, at: backslash) }
        default:
            throw fail(.invalidEscape(letter))
        }
    }

    /// The four hex digits of a `\u` escape at ``offset``.
    private mutating func hexQuad() throws(StrictJSONError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = JSONString.hexValue(byte) else { throw fail(.badUnicodeEscape) }
            unit = unit << 4 | UInt32(digit)
            offset += 1
        }
        return unit
    }

    /// A number literal at ``offset``, its grammar checked.
    mutating func number() throws(StrictJSONError) -> Slice<UnsafeBufferPointer<UInt8>> {
        let start = offset
        if peek == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek, Self.isDigit(first) else { throw fail(.missingIntegerDigit) }
        offset += 1
        if first == UInt8(ascii: "0") {
            if let next = peek, Self.isDigit(next) { throw fail(.leadingZero) }
        } else {
            skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            offset += 1
            guard let digit = peek, Self.isDigit(digit) else { throw fail(.missingFractionDigit) }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            offset += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { offset += 1 }
            guard let digit = peek, Self.isDigit(digit) else { throw fail(.missingExponentDigit) }
            skipDigits()
        }
        return bytes[start..<offset]
    }

    /// `true`, `false` or `null` at ``offset``.
    mutating func literal(_ word: StaticString) throws(StrictJSONError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[offset..<(offset + count)])
        else { throw fail(.unexpectedByteWhereValueExpected(bytes[offset])) }
        offset += count
        expectation = .separator
    }

    private mutating func skipDigits() {
        while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
    }

    /// Whether `byte` is an ASCII decimal digit (the grammar's `DIGIT`).
    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether `raw` is UTF-8 (no string built: the standard library's decoder in place).
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
