extension JSON {
    /// How deeply arrays and objects may nest; deeper texts are refused rather than parsed.
    public static let maximumDepth = 512

    /// Parses one JSON text (RFC 8259) from UTF-8 `bytes`: exactly the grammar (no trailing
    /// commas, no leading zeros, no control characters in strings, nothing but whitespace after
    /// the value), valid UTF-8, no member name twice in an object, nesting at most
    /// ``maximumDepth`` deep. Number literals are kept as written.
    public init(parsing bytes: some Sequence<UInt8>) throws(JSONPatchError) {
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONPatchError) in try JSONParser.parse(buffer) }
        }
        if let parsed {
            self = try parsed.get()
        } else {
            let copy = Array(bytes)
            self = try copy.withUnsafeBufferPointer { (buffer) throws(JSONPatchError) in try JSONParser.parse(buffer) }
        }
    }

    /// Parses one JSON text from the UTF-8 of `text`, as the bytes initializer does.
    public init(parsing text: String) throws(JSONPatchError) {
        try self.init(parsing: Array(text.utf8))
    }
}

/// A recursive descent parser over a buffer of UTF-8 bytes.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONPatchError) -> JSON {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.fail("unexpected bytes after the JSON value") }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func value() throws(JSONPatchError) -> JSON {
        guard index < bytes.count else { throw fail("the text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected byte where a value was expected")
        }
    }

    private mutating func object() throws(JSONPatchError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        var members: [JSONObject.Member] = []
        var sorted = true
        if peek(UInt8(ascii: "}")) {
            index += 1
            return JSONObject()
        }
        while true {
            guard peek(UInt8(ascii: "\"")) else { throw fail("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            let member = JSONObject.Member(key: key, value: try value())
            if sorted, let last = members.last, JSONObject.compare(last.key, key) != .orderedAscending {
                sorted = false
            }
            members.append(member)
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                skipWhitespace()
            } else if peek(UInt8(ascii: "}")) {
                index += 1
                break
            } else {
                throw fail("expected ',' or '}' in an object")
            }
        }
        if !sorted {
            // Our encoder writes sorted keys: this is the path of other writers.
            members.sort { JSONObject.compare($0.key, $1.key) == .orderedAscending }
            for (previous, next) in zip(members, members.dropFirst())
            where JSONObject.compare(previous.key, next.key) == .orderedSame {
                throw JSONPatchError(.malformedJSON, "the member name \"\(next.key)\" appears twice in an object")
            }
        }
        return JSONObject(sortedMembers: members)
    }

    private mutating func array() throws(JSONPatchError) -> [JSON] {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        var items: [JSON] = []
        if peek(UInt8(ascii: "]")) {
            index += 1
            return items
        }
        while true {
            items.append(try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                skipWhitespace()
            } else if peek(UInt8(ascii: "]")) {
                index += 1
                return items
            } else {
                throw fail("expected ',' or ']' in an array")
            }
        }
    }

    /// A string starting at the opening quote, unescaped.
    private mutating func string() throws(JSONPatchError) -> String {
        index += 1
        let start = index
        // The common case: no escapes; the bytes between the quotes are the string (ASCII needs
        // no UTF-8 validation).
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let text = ascii ? String(decoding: raw, as: UTF8.self) : try utf8(raw, at: start)
                index += 1
                return text
            }
            if byte >= 0x80 { ascii = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("a control character in a string must be escaped") }
            index += 1
        }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try unescaped.withUnsafeBufferPointer { (buffer) throws(JSONPatchError) in try utf8(buffer, at: start) }
            case UInt8(ascii: "\\"):
                try escape(into: &unescaped)
            case ..<0x20:
                throw fail("a control character in a string must be escaped")
            default:
                unescaped.append(byte)
                index += 1
            }
        }
        throw fail("the text ends inside a string")
    }

    /// One escape sequence, starting at its backslash, appended to `unescaped` as UTF-8.
    private mutating func escape(into unescaped: inout [UInt8]) throws(JSONPatchError) {
        index += 1
        guard index < bytes.count else { throw fail("the text ends inside an escape") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(letter)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("a high surrogate escape without its low surrogate")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate escape without its low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("a low surrogate escape without its high surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("an escape that is not a Unicode scalar") }
            UTF8.encode(unicode) { unescaped.append($0) }
        default:
            throw fail("an unknown escape")
        }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func hex4() throws(JSONPatchError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw fail("the text ends inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// A number literal as written, after checking its grammar.
    private mutating func number() throws(JSONPatchError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
            if isDigit { throw fail("a number must not have a leading zero") }
        } else {
            guard isDigit else { throw fail("a number needs a digit") }
            skipDigits()
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard isDigit else { throw fail("a number needs a digit after its decimal point") }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard isDigit else { throw fail("a number needs a digit in its exponent") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private var isDigit: Bool {
        index < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
    }

    private mutating func skipDigits() {
        while isDigit { index += 1 }
    }

    private mutating func literal(_ word: StaticString) throws(JSONPatchError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                  UnsafeBufferPointer(start: word.utf8Start, count: count)
              ) else {
            throw fail("unexpected byte where a value was expected")
        }
        index += count
    }

    private mutating func enter() throws(JSONPatchError) {
        depth += 1
        guard depth <= JSON.maximumDepth else { throw fail("nested deeper than \(JSON.maximumDepth) levels") }
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// `buffer` as a string, if it is valid UTF-8.
    private func utf8(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONPatchError) -> String {
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw JSONPatchError(.malformedJSON, "a string that is not valid UTF-8 at byte \(offset)")
        }
        return text
    }

    private func fail(_ reason: String) -> JSONPatchError {
        JSONPatchError(.malformedJSON, "\(reason) at byte \(index)")
    }
}
