/// The bytes of a JSON text, read only as far as ``diff(canonical:_:maxOperations:)`` needs: where
/// a value, an object's members and an array's elements start and end. Values are parsed
/// (``value(_:)``) only where an operation carries them.
struct CanonicalText {
    let bytes: UnsafeBufferPointer<UInt8>

    private static var malformed: JSONPatchError {
        JSONPatchError(code: .malformedJSON, message: "the text is not the JSON the canonical diff expects")
    }

    /// The text's one value, without the whitespace around it.
    func wholeValue() throws(JSONPatchError) -> Range<Int> {
        let start = skipWhitespace(from: 0)
        let end = try valueEnd(from: start)
        guard skipWhitespace(from: end) == bytes.count else { throw Self.malformed }
        return start..<end
    }

    /// The value at `range`, parsed (and checked) as ``JSON/init(parsing:)-(Sequence<UInt8>)`` does.
    func value(_ range: Range<Int>) throws(JSONPatchError) -> JSON {
        try JSON(parsing: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// The name whose string literal (quotes included) is at `range`.
    func name(_ range: Range<Int>) throws(JSONPatchError) -> String {
        let inside = UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
        if !inside.contains(UInt8(ascii: "\\")), let name = String(validating: inside, as: UTF8.self) {
            return name
        }
        guard case .string(let name) = try value(range) else { throw Self.malformed }
        return name
    }

    /// The order of two names, given as the ranges of their string literals: by their UTF-8
    /// bytes, as objects' members are sorted.
    static func compare(_ left: CanonicalText, _ leftName: Range<Int>, _ right: CanonicalText, _ rightName: Range<Int>) throws(JSONPatchError) -> JSONObject.Ordering {
        let leftInside = UnsafeBufferPointer(rebasing: left.bytes[(leftName.lowerBound + 1)..<(leftName.upperBound - 1)])
        let rightInside = UnsafeBufferPointer(rebasing: right.bytes[(rightName.lowerBound + 1)..<(rightName.upperBound - 1)])
        guard leftInside.contains(UInt8(ascii: "\\")) || rightInside.contains(UInt8(ascii: "\\")) else {
            if leftInside.elementsEqual(rightInside) { return .orderedSame }
            return leftInside.lexicographicallyPrecedes(rightInside) ? .orderedAscending : .orderedDescending
        }
        return JSONObject.compare(try left.name(leftName), try right.name(rightName))
    }

    /// The name (its string literal) and the value of each member of the object at `range`, in
    /// the text's order.
    func members(of range: Range<Int>) throws(JSONPatchError) -> [(name: CanonicalValue, value: CanonicalValue)] {
        var members: [(name: CanonicalValue, value: CanonicalValue)] = []
        try readItems(of: range, closedBy: UInt8(ascii: "}")) { (start) throws(JSONPatchError) in
            guard bytes[start] == UInt8(ascii: "\"") else { throw Self.malformed }
            let nameEnd = try stringEnd(from: start)
            var valueStart = skipWhitespace(from: nameEnd)
            guard valueStart < range.upperBound, bytes[valueStart] == UInt8(ascii: ":") else { throw Self.malformed }
            valueStart = skipWhitespace(from: valueStart + 1)
            let valueEnd = try valueEnd(from: valueStart)
            members.append((CanonicalValue(text: self, range: start..<nameEnd), CanonicalValue(text: self, range: valueStart..<valueEnd)))
            return valueEnd
        }
        return members
    }

    /// Each element of the array at `range`.
    func elements(of range: Range<Int>) throws(JSONPatchError) -> [CanonicalValue] {
        var elements: [CanonicalValue] = []
        try readItems(of: range, closedBy: UInt8(ascii: "]")) { (start) throws(JSONPatchError) in
            let end = try valueEnd(from: start)
            elements.append(CanonicalValue(text: self, range: start..<end))
            return end
        }
        return elements
    }

    /// Calls `readItem` with where each item (member or element) of the object or array at
    /// `range` starts; it returns where the item ends. The commas between them and the closing
    /// bracket `close` are checked.
    private func readItems(
        of range: Range<Int>,
        closedBy close: UInt8,
        _ readItem: (Int) throws(JSONPatchError) -> Int
    ) throws(JSONPatchError) {
        var index = skipWhitespace(from: range.lowerBound + 1)
        guard index < range.upperBound else { throw Self.malformed }
        if bytes[index] == close { return }
        while true {
            guard index < range.upperBound else { throw Self.malformed }
            index = skipWhitespace(from: try readItem(index))
            guard index < range.upperBound else { throw Self.malformed }
            switch bytes[index] {
            case UInt8(ascii: ","): index = skipWhitespace(from: index + 1)
            case close: return
            default: throw Self.malformed
            }
        }
    }

    /// Where the value that starts at `start` ends: a string's closing quote, the bracket that
    /// closes an object or array, or a scalar's last character; one past it.
    private func valueEnd(from start: Int) throws(JSONPatchError) -> Int {
        guard start < bytes.count else { throw Self.malformed }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return try stringEnd(from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = try stringEnd(from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            throw Self.malformed
        default:
            var index = start
            while index < bytes.count, !Self.endsScalar(bytes[index]) {
                index += 1
            }
            guard index > start else { throw Self.malformed }
            return index
        }
    }

    /// One past the closing quote of the string literal whose opening quote is at `start`.
    private func stringEnd(from start: Int) throws(JSONPatchError) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        throw Self.malformed
    }

    private func skipWhitespace(from start: Int) -> Int {
        var index = start
        while index < bytes.count, Self.isWhitespace(bytes[index]) {
            index += 1
        }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || isWhitespace(byte)
    }
}
