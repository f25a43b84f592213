/// The project's one reader of JSON (RFC 8259), exactly: a pull tokenizer that checks the whole
/// grammar as it hands out ``JSONToken``s — no trailing commas, no leading zeros, no comments, no
/// control characters, lone surrogates or invalid UTF-8 in strings, nothing after the value, no
/// member name twice in an object (by ``NameRule``), nesting at most ``maximumDepth`` deep.
///
/// Every other reader stands on it: `JSON(parsing:)` of JSON Patch builds values from its
/// tokens, the `POST /actions` validator only drains them, and the JWT reader takes the
/// members of one object as slices. A malformed text throws a ``StrictJSONError`` (each of
/// them words it its own way) at the first byte that breaks a rule.
public struct StrictJSONReader {
    /// How member names of one object are compared for duplicates.
    public enum NameRule: Sendable {
        /// By their code points (UTF-8 bytes, escapes resolved): what JSON itself compares.
        case codePoints
        /// By Swift's `==` (canonical equivalence), which a `Decodable` keyed container uses:
        /// `"\u00e9"` and `"e\u0301"` are then one name.
        case canonicalEquivalence
    }

    /// The default nesting limit: arrays and objects inside each other at most this deep.
    public static let defaultMaximumDepth = 512

    /// What comes next in the grammar.
    enum Expectation {
        /// The document's value.
        case documentValue
        /// After `{`: a member name or `}`.
        case firstMember
        /// After a comma in an object: a member name.
        case member
        /// After a member name and its colon: the member's value.
        case memberValue
        /// After `[`: a value or `]`.
        case firstItem
        /// After a comma in an array: a value.
        case item
        /// After a value: a comma, the container's end, or (at depth 0) the end of the text.
        case separator
        /// The text was read to its end.
        case finished
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The nesting limit of this reader.
    public let maximumDepth: Int
    let nameRule: NameRule
    /// The offset of the next unread byte.
    public internal(set) var offset = 0
    /// Where the last token returned by ``next()`` starts.
    public private(set) var tokenStart = 0
    /// How many arrays and objects are open.
    public private(set) var depth = 0
    var expectation = Expectation.documentValue
    /// Bit `n` set: the container at depth `n + 1` is an object (depths up to 64).
    var shallowKinds: UInt64 = 0
    /// The same for depths beyond 64 (rare: no allocation for ordinary texts).
    var deepKinds: [Bool] = []
    /// The member names of the open objects, innermost last (``StrictJSONReader+Names``).
    var names = NameStack()

    /// A reader of `bytes`, which must be one JSON text.
    public init(
        _ bytes: UnsafeBufferPointer<UInt8>,
        maximumDepth: Int = defaultMaximumDepth,
        names nameRule: NameRule = .codePoints
    ) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.nameRule = nameRule
    }

    /// Reads the whole text, only checking it; throws at the first rule it breaks.
    public static func validate(
        _ bytes: UnsafeBufferPointer<UInt8>,
        maximumDepth: Int = defaultMaximumDepth,
        names nameRule: NameRule = .codePoints
    ) throws(StrictJSONError) {
        var reader = StrictJSONReader(bytes, maximumDepth: maximumDepth, names: nameRule)
        while try reader.next() != nil {}
    }

    /// JSON's whitespace: space, tab, line feed, carriage return (RFC 8259 §2).
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The next token, or nil once the document's value is complete and only whitespace
    /// follows it.
    public mutating func next() throws(StrictJSONError) -> JSONToken? {
        while true {
            skipWhitespace()
            tokenStart = offset
            switch expectation {
            case .documentValue, .memberValue, .item:
                return try value()
            case .firstMember, .member:
                if expectation == .firstMember, peek == UInt8(ascii: "}") { return close() }
                guard peek == UInt8(ascii: "\"") else {
                    throw fail(.expectedMemberName(afterComma: expectation == .member))
                }
                return .name(try memberName())
            case .firstItem:
                if peek == UInt8(ascii: "]") { return close() }
                return try value()
            case .separator:
                guard depth > 0 else {
                    guard let byte = peek else {
                        expectation = .finished
                        return nil
                    }
                    throw fail(.unexpectedByteAfterValue(byte))
                }
                let inObject = isObject(atDepth: depth)
                let closing = inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                switch peek {
                case UInt8(ascii: ","):
                    offset += 1
                    skipWhitespace()
                    if !inObject, peek == UInt8(ascii: "]") { throw fail(.trailingCommaInArray) }
                    expectation = inObject ? .member : .item
                case closing:
                    return close()
                default:
                    throw fail(.expectedCommaOrEnd(closing: closing))
                }
            case .finished:
                return nil
            }
        }
    }

    /// A value starting at ``offset``.
    private mutating func value() throws(StrictJSONError) -> JSONToken {
        guard let byte = peek else { throw fail(.endOfTextWhereValueExpected) }
        switch byte {
        case UInt8(ascii: "{"):
            try open(object: true)
            names.open()
            expectation = .firstMember
            return .objectStart
        case UInt8(ascii: "["):
            try open(object: false)
            expectation = .firstItem
            return .arrayStart
        case UInt8(ascii: "\""):
            let string = try string()
            expectation = .separator
            return .string(string)
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try number()
            expectation = .separator
            return .number(number)
        default:
            throw fail(.unexpectedByteWhereValueExpected(byte))
        }
    }

    /// A member name with its colon; checked against the names before it in its object.
    private mutating func memberName() throws(StrictJSONError) -> JSONString {
        let quote = offset
        let name = try string()
        try checkUnique(name, at: quote)
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw fail(.expectedColon) }
        offset += 1
        expectation = .memberValue
        return name
    }

    /// Enters an array or object at ``offset``.
    private mutating func open(object: Bool) throws(StrictJSONError) {
        guard depth < maximumDepth else { throw fail(.tooDeep(limit: maximumDepth)) }
        depth += 1
        if depth <= 64 {
            let bit: UInt64 = 1 << UInt64(depth - 1)
            shallowKinds = object ? shallowKinds | bit : shallowKinds & ~bit
        } else {
            deepKinds.append(object)
        }
        offset += 1
    }

    /// Leaves the container whose closing byte is at ``offset``.
    private mutating func close() -> JSONToken {
        let object = isObject(atDepth: depth)
        if depth > 64 { deepKinds.removeLast() }
        if object { names.close() }
        depth -= 1
        offset += 1
        expectation = .separator
        return object ? .objectEnd : .arrayEnd
    }

    private func isObject(atDepth level: Int) -> Bool {
        level <= 64 ? shallowKinds & (1 << UInt64(level - 1)) != 0 : deepKinds[level - 65]
    }

    var peek: UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    mutating func skipWhitespace() {
        while offset < bytes.count, Self.isWhitespace(bytes[offset]) { offset += 1 }
    }

    func fail(_ kind: StrictJSONError.Kind) -> StrictJSONError {
        StrictJSONError(kind, at: offset)
    }
}
