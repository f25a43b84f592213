/// ``diff(_:_:maxOperations:)`` of two JSON texts written canonically, without parsing them: equal
/// values are found by comparing their bytes, and only the values an operation carries are parsed.
///
/// Both texts must be written the way the server writes states (`JSONCoding`) and
/// ``JSON/canonicalBytes`` writes values: each object's members sorted by their names' UTF-8 bytes
/// with no name twice, and a string always escaped the same way. Then two values are equal (`==`:
/// the same number text, the same code points) exactly when their bytes are, and the operations
/// are those of the trees' diff. Whitespace between tokens is allowed. Throws for a text that is not JSON where it is read (what the walk skips over because
/// both sides have the same bytes is not checked); nil when more than `maxOperations` are needed.
public func diff(canonical old: [UInt8], _ new: [UInt8], maxOperations: Int) throws(JSONPatchError) -> [PatchOperation]? {
    let result: Result<[PatchOperation]?, JSONPatchError> = old.withUnsafeBufferPointer { oldBytes in
        new.withUnsafeBufferPointer { newBytes in
            let (oldText, newText) = (CanonicalText(bytes: oldBytes), CanonicalText(bytes: newBytes))
            var differ = Differ<CanonicalValue>(maxOperations: maxOperations)
            do throws(JSONPatchError) {
                try differ.compare(
                    CanonicalValue(text: oldText, range: try oldText.wholeValue()),
                    CanonicalValue(text: newText, range: try newText.wholeValue())
                )
                return .success(differ.exceeded ? nil : differ.operations)
            } catch {
                return .failure(error)
            }
        }
    }
    return try result.get()
}

/// A value in a canonical text, as ``Differ`` reads it: its bytes compared, its members and items
/// found where the walk goes, parsed only when an operation carries it.
struct CanonicalValue: DiffValue {
    let text: CanonicalText
    /// The value's bytes in `text` (for a name: its string literal, quotes included).
    let range: Range<Int>

    /// Whether the two values have the same bytes (compared 8 at a time): equal values, in
    /// canonical texts.
    func isSame(as other: CanonicalValue) -> Bool {
        guard range.count == other.range.count else { return false }
        guard let base = text.bytes.baseAddress, let otherBase = other.text.bytes.baseAddress else { return range.isEmpty }
        let left = UnsafeRawPointer(base + range.lowerBound)
        let right = UnsafeRawPointer(otherBase + other.range.lowerBound)
        var offset = 0
        while offset + 8 <= range.count {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset += 8
        }
        while offset < range.count {
            guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }

    var isObject: Bool { text.bytes[range.lowerBound] == UInt8(ascii: "{") }
    var isArray: Bool { text.bytes[range.lowerBound] == UInt8(ascii: "[") }

    func members() throws(JSONPatchError) -> [(name: CanonicalValue, value: CanonicalValue)] {
        try text.members(of: range)
    }

    func elements() throws(JSONPatchError) -> [CanonicalValue] {
        try text.elements(of: range)
    }

    func json() throws(JSONPatchError) -> JSON {
        try text.value(range)
    }

    static func order(_ left: CanonicalValue, _ right: CanonicalValue) throws(JSONPatchError) -> JSONObject.Ordering {
        try CanonicalText.compare(left.text, left.range, right.text, right.range)
    }

    static func string(_ name: CanonicalValue) throws(JSONPatchError) -> String {
        try name.text.name(name.range)
    }
}
