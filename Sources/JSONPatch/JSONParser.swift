import StrictJSON

extension JSON {
    /// How deeply arrays and objects may nest; deeper texts are refused rather than parsed.
    public static let maximumDepth = StrictJSONReader.defaultMaximumDepth

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

/// Builds a ``JSON`` value from the tokens of the strict reader, which checks the text.
struct JSONParser {
    private var reader: StrictJSONReader

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONPatchError) -> JSON {
        var parser = JSONParser(reader: StrictJSONReader(bytes, maximumDepth: JSON.maximumDepth, names: .codePoints))
        do {
            let value = try parser.value(parser.nextToken())
            // The reader checks that only whitespace follows the value.
            _ = try parser.reader.next()
            return value
        } catch {
            throw Self.error(error)
        }
    }

    private init(reader: StrictJSONReader) {
        self.reader = reader
    }

    private mutating func nextToken() throws(StrictJSONError) -> JSONToken {
        // The reader returns nil only after a complete value, which `value` never asks past.
        guard let token = try reader.next() else { throw StrictJSONError(.endOfTextWhereValueExpected, at: reader.offset) }
        return token
    }

    private mutating func value(_ token: JSONToken) throws(StrictJSONError) -> JSON {
        switch token {
        case .objectStart: return .object(try object())
        case .arrayStart:
            var items: [JSON] = []
            while true {
                let next = try nextToken()
                if case .arrayEnd = next { return .array(items) }
                items.append(try value(next))
            }
        case .string(let string): return .string(string.text)
        case .number(let literal): return .number(String(decoding: UnsafeBufferPointer(rebasing: literal), as: UTF8.self))
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .objectEnd, .arrayEnd, .name:
            // The reader hands these out only where a container is being read.
            throw StrictJSONError(.unexpectedByteWhereValueExpected(0), at: reader.tokenStart)
        }
    }

    /// The members of an object whose `{` was read; the reader has refused repeated names.
    private mutating func object() throws(StrictJSONError) -> JSONObject {
        var members: [JSONObject.Member] = []
        var sorted = true
        while case .name(let name) = try nextToken() {
            let key = name.text
            if sorted, let last = members.last, JSONObject.compare(last.key, key) != .orderedAscending {
                sorted = false
            }
            members.append(JSONObject.Member(key: key, value: try value(nextToken())))
        }
        if !sorted {
            // Our encoder writes sorted keys: this is the path of other writers.
            members.sort { JSONObject.compare($0.key, $1.key) == .orderedAscending }
        }
        return JSONObject(sortedMembers: members)
    }

    /// The reader's error as a JSON Patch error, in StrictJSON's one wording:
    /// `<reason> at byte <offset>`.
    private static func error(_ error: StrictJSONError) -> JSONPatchError {
        JSONPatchError(code: .malformedJSON, message: error.message)
    }
}
