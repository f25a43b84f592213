/// HTTP header fields as ordered name/value pairs, with case-insensitive lookup by name.
///
/// Order and repeated names are preserved, so the same type serves requests (as received)
/// and responses (as sent). Two are equal when they hold the same fields in the same order, names
/// compared exactly (as sent, not case-insensitively).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public typealias Element = (name: String, value: String)

    /// One field, stored as a struct: an array of `(String, String)` tuples is destroyed through
    /// the runtime's generic tuple witness, field by field (about 300 instructions a request).
    struct Field: Equatable {
        var name: String
        var value: String
        /// The bit of the ``KnownName`` the name is (in any case), 0 for another name; set only
        /// for fields read from a request's head (see ``knownNames``).
        var knownBit: UInt32 = 0

        /// Equal when name and value are (the known bit follows from the name).
        static func == (lhs: Field, rhs: Field) -> Bool {
            lhs.name == rhs.name && lhs.value == rhs.value
        }
    }

    private var fields: [Field] {
        didSet { knownNames = Self.unknownNames }
    }
    /// The bits of the ``KnownName``s these fields hold: set for a request's head as it is read,
    /// each field then carrying its own (``Field/knownBit``); every bit (``unknownNames``: a
    /// lookup compares names) for headers made otherwise or changed since. See ``mayHold(_:)``.
    /// Not optional: the optional's tag made every struct that holds headers (a response) a word
    /// larger.
    private(set) var knownNames = unknownNames
    /// ``knownNames`` when they are not known.
    static let unknownNames = UInt32.max

    /// Room for the fields an answer usually gets after it is made (content type, ETag, CORS,
    /// `Vary`…): growing the array one field at a time reallocates it on every request.
    static let usualFieldCount = 8

    /// Creates headers from pairs, keeping their order and any repeated names.
    public init(_ pairs: [(String, String)] = []) {
        fields = []
        fields.reserveCapacity(Swift.max(pairs.count, Self.usualFieldCount))
        for (name, value) in pairs {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Creates headers from a literal such as `["Content-Type": "text/plain"]`, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Fields read from a request's head, with the bits of the known names among them (any case).
    init(fields: [Field], knownNames: UInt32) {
        self.fields = fields
        self.knownNames = knownNames
    }

    /// Equal when they hold the same fields in the same order (names compared exactly).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields == rhs.fields
    }

    /// Whether each field carries its ``Field/knownBit`` (a request's head, unchanged).
    var fieldsKnowTheirNames: Bool {
        knownNames != Self.unknownNames
    }

    /// The position of the first field whose name is the known name of `bit`, compared by bit
    /// (only when ``fieldsKnowTheirNames``): a word compared where a name was.
    func firstIndex(ofKnown bit: UInt32) -> Int? {
        fields.indices.first { fields[$0].knownBit == bit }
    }

    /// ``firstIndex(ofKnown:)``, and whether another field of that name follows it.
    func firstIndexAndRepeat(ofKnown bit: UInt32) -> (index: Int, isRepeated: Bool)? {
        var first: Int?
        for index in fields.indices where fields[index].knownBit == bit {
            if let first {
                return (first, true)
            }
            first = index
        }
        return first.map { ($0, false) }
    }

    /// The value of the field at `index`.
    func value(at index: Int) -> String {
        fields[index].value
    }

    /// The first value for `name` (compared case-insensitively), or `nil` when absent.
    public subscript(_ name: String) -> String? {
        // By index: `for field in fields` copies each pair, retaining and releasing its value.
        for index in fields.indices where fields[index].name.equalsCaseInsensitively(name) {
            return fields[index].value
        }
        return nil
    }

    /// The first value for `name` (compared case-insensitively) and whether another field of that
    /// name follows it; nil when absent. For fields that must be single (a credential).
    public func firstValue(named name: String) -> (value: String, isRepeated: Bool)? {
        var first: String?
        for index in fields.indices where fields[index].name.equalsCaseInsensitively(name) {
            if let first {
                return (first, true)
            }
            first = fields[index].value
        }
        return first.map { ($0, false) }
    }

    /// Every value for `name` (compared case-insensitively), in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        for index in fields.indices where fields[index].name.equalsCaseInsensitively(name) {
            values.append(fields[index].value)
        }
        return values
    }

    /// Every line of a list field (`If-Match`, `If-None-Match`, …) joined with `", "`, which
    /// means the same as one line holding them all (RFC 9110 §5.3); nil when there is none.
    public func list(_ name: String) -> String? {
        let lines = values(for: name)
        switch lines.count {
        case 0: return nil
        case 1: return lines[0]
        default: return lines.joined(separator: ", ")
        }
    }

    /// Whether a field named `name` (compared case-insensitively) is present.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// Appends a field, keeping any existing fields with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces the first field named `name` (case-insensitively) and removes the others, or appends one.
    /// Adds each header of `other` whose name this one does not have yet (a pending response's
    /// own headers join the response it completes with).
    public mutating func addMissing(_ other: HTTPHeaders) {
        let missing = other.fields.filter { !contains($0.name) }
        fields += missing
    }

    /// Sets the field `name` to `value`: replaces the first field of that name (removing any later
    /// one) or adds it.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { $0.name.equalsCaseInsensitively(name) }) else {
            fields.append(Field(name: name, value: value))
            return
        }
        fields[first] = Field(name: name, value: value)
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if fields[index].name.equalsCaseInsensitively(name) {
                fields.remove(at: index)
            } else {
                index = fields.index(after: index)
            }
        }
    }

    /// Removes every field named `name` (compared case-insensitively).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.equalsCaseInsensitively(name) }
    }

    /// The number of fields, repeated names counted separately.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> Iterator {
        Iterator(fields: fields.makeIterator())
    }

    /// The fields in order, as name/value pairs.
    public struct Iterator: IteratorProtocol {
        fileprivate var fields: IndexingIterator<[Field]>

        /// The next field, or nil after the last.
        public mutating func next() -> Element? {
            fields.next().map { (name: $0.name, value: $0.value) }
        }
    }

    /// The fields as `Name: value` lines, for debugging.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension String {
    /// ASCII case-insensitive equality without allocating (header names are ASCII tokens).
    ///
    /// Names of different lengths are told apart by their byte counts alone (constant time for
    /// native strings): most comparisons of a lookup are with other names. Names of one length
    /// are compared over their contiguous UTF-8 (native strings, small ones included, always have
    /// it): through `String.UTF8View`'s iterator a 12-byte match cost about 800 instructions,
    /// over the buffers about 60.
    @inline(__always)
    func equalsCaseInsensitively(_ other: String) -> Bool {
        utf8.count == other.utf8.count && bytesEqualCaseInsensitively(other)
    }

    /// ``equalsCaseInsensitively(_:)`` for two strings of one length.
    @inline(never)
    private func bytesEqualCaseInsensitively(_ other: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in
                lhs.equalsCaseInsensitively(rhs)
            }
        }
        if let contiguous, let equal = contiguous {
            return equal
        }
        // A bridged string without contiguous UTF-8.
        return utf8.elementsEqual(other.utf8) { $0.asciiLowercased == $1.asciiLowercased }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether both hold the same bytes but for the case of ASCII letters.
    func equalsCaseInsensitively(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        for index in indices {
            let left = self[index]
            let right = other[index]
            if left != right, left.asciiLowercased != right.asciiLowercased {
                return false
            }
        }
        return true
    }
}

extension UInt8 {
    var asciiLowercased: UInt8 {
        self &- UInt8(ascii: "A") < 26 ? self | 0x20 : self
    }
}
