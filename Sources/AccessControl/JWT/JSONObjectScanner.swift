import StrictJSON

/// The reader of the one shape a JOSE header or JWT claims set has: a JSON object.
///
/// The project's strict reader (``StrictJSON/StrictJSONReader``) checks the whole text (RFC 8259
/// exactly, valid UTF-8, no member name twice, nesting at most ``maximumDepth`` inside the
/// object) while ``next()`` hands out the top-level members one by one as slices of the input
/// (``StringSlice``, ``Value``) — no dictionary, no `Any`, no string per member — so reading a
/// token costs no allocation beyond the decoded bytes. Values that are not read (nested
/// objects, unknown claims) are only checked.
struct JSONObjectScanner {
    /// One step through the top-level object.
    enum Step {
        /// The next member, in order of appearance.
        case member(StringSlice, Value)
        /// The object ended and nothing but whitespace follows it.
        case end
        /// The text is not one JSON object (or the scan already ended); ``repeatsAName`` tells
        /// a member name that appears twice in one object (RFC 7515 §4, RFC 7519 §4: refused).
        case malformed
    }

    /// A string as it appears in the input, escapes resolved on demand.
    typealias StringSlice = JSONString

    /// How deeply arrays and objects may nest inside the top-level object.
    static let maximumDepth = 32

    private var reader: StrictJSONReader
    private let bytes: UnsafeBufferPointer<UInt8>
    private var started = false
    private var finished = false
    /// Whether the text was refused because an object repeats a member name.
    private(set) var repeatsAName = false

    /// A scanner of `bytes`, which must be exactly one JSON object; read it with ``next()``.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        reader = StrictJSONReader(bytes, maximumDepth: Self.maximumDepth + 1, names: .codePoints)
    }

    /// The next top-level member, the end of the object, or why the text is refused — checking
    /// the whole text as it goes: `.end` comes only after the closing brace and trailing
    /// whitespace.
    mutating func next() -> Step {
        guard !finished else { return .malformed }
        do {
            if !started {
                started = true
                guard case .objectStart = try reader.next() else { return finish(.malformed) }
            }
            switch try reader.next() {
            case .name(let name):
                return .member(name, try value())
            case .objectEnd:
                guard try reader.next() == nil else { return finish(.malformed) }
                return finish(.end)
            default:
                return finish(.malformed)
            }
        } catch {
            if case .duplicateName = error.kind { repeatsAName = true }
            return finish(.malformed)
        }
    }

    /// Calls `element` for each element of `array`, a value ``next()`` returned; false when an
    /// element is not a string.
    static func forEachString(
        inArray array: Slice<UnsafeBufferPointer<UInt8>>, _ element: (StringSlice) -> Void
    ) -> Bool {
        // The array was checked when it was scanned: only the kind of each element matters.
        var reader = StrictJSONReader(UnsafeBufferPointer(rebasing: array), maximumDepth: maximumDepth + 1)
        guard case .arrayStart? = try? reader.next() else { return false }
        while true {
            switch try? reader.next() {
            case .arrayEnd?: return true
            case .string(let string)?: element(string)
            default: return false
            }
        }
    }

    /// The value of the member whose name was just read.
    private mutating func value() throws(StrictJSONError) -> Value {
        let token = try reader.next()
        let start = reader.tokenStart
        switch token {
        case .string(let string)?: return .string(string)
        case .number(let literal)?: return .number(literal)
        case .bool(let flag)?: return .bool(flag)
        case .null?: return .null
        case .objectStart?:
            try skipContainer()
            return .object
        case .arrayStart?:
            try skipContainer()
            return .array(bytes[start..<reader.offset])
        case .objectEnd?, .arrayEnd?, .name?, nil:
            // Not handed out where a member's value is read.
            throw StrictJSONError(.endOfTextWhereValueExpected, at: reader.offset)
        }
    }

    /// Reads the rest of the container just opened, through its closing byte.
    private mutating func skipContainer() throws(StrictJSONError) {
        let level = reader.depth - 1
        while reader.depth > level, try reader.next() != nil {}
    }

    private mutating func finish(_ step: Step) -> Step {
        finished = true
        return step
    }
}
