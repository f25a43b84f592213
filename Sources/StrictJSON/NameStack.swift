/// The member names of the open objects of a text, for the rule that a name appears once per
/// object: innermost object last, each name as its place in the text.
///
/// A few names are compared one by one (no hashing, no allocation beyond one growing array per
/// text); an object with more than ``hashingThreshold`` names gets a set, so that a body of
/// 100,000 members costs 100,000 lookups, not 5 billion comparisons.
struct NameStack {
    /// One name: its place in the text and what it holds.
    struct Entry {
        let start: Int
        let end: Int
        let hasEscapes: Bool
        let isASCII: Bool
    }

    /// One open object: where its names start in ``entries``, and its set once it is large.
    struct Frame {
        let base: Int
        var canonicalSet: Set<String>?
        var codePointSet: Set<[UInt8]>?
    }

    /// Objects with more names than this are checked with a set.
    static let hashingThreshold = 16

    private var entries: [Entry] = []
    private var frames: [Frame] = []

    /// An object was opened.
    mutating func open() {
        frames.append(Frame(base: entries.count))
    }

    /// The innermost object was closed.
    mutating func close() {
        guard let frame = frames.popLast() else { return }
        entries.removeSubrange(frame.base...)
    }

    /// Adds `name` to the innermost object; returns the earlier name it repeats, if any.
    mutating func insert(
        _ name: JSONString, in bytes: UnsafeBufferPointer<UInt8>, rule: StrictJSONReader.NameRule
    ) -> JSONString? {
        guard !frames.isEmpty else { return nil }
        let innermost = frames.count - 1
        let base = frames[innermost].base
        let entry = Entry(start: name.raw.startIndex, end: name.raw.endIndex, hasEscapes: name.hasEscapes, isASCII: name.isASCII)
        let count = entries.count - base
        if count < Self.hashingThreshold {
            for earlier in entries[base...] {
                let other = Self.string(earlier, in: bytes)
                if Self.same(name, other, rule: rule) { return other }
            }
            entries.append(entry)
            if count + 1 == Self.hashingThreshold {
                for earlier in entries[base...] {
                    _ = Self.insert(Self.string(earlier, in: bytes), into: &frames[innermost], rule: rule)
                }
            }
            return nil
        }
        guard Self.insert(name, into: &frames[innermost], rule: rule) else {
            // Found by the set: look for the earlier name to report it (once, on the error path).
            let earlier = entries[base...].first { Self.same(name, Self.string($0, in: bytes), rule: rule) }
            return earlier.map { Self.string($0, in: bytes) } ?? name
        }
        entries.append(entry)
        return nil
    }

    /// Inserts `name` into the frame's set; false when it was there.
    private static func insert(_ name: JSONString, into frame: inout Frame, rule: StrictJSONReader.NameRule) -> Bool {
        switch rule {
        case .codePoints:
            var set = frame.codePointSet ?? []
            frame.codePointSet = nil
            defer { frame.codePointSet = set }
            return set.insert(name.unescaped()).inserted
        case .canonicalEquivalence:
            var set = frame.canonicalSet ?? []
            frame.canonicalSet = nil
            defer { frame.canonicalSet = set }
            return set.insert(name.text).inserted
        }
    }

    /// Whether two names are one by `rule`.
    static func same(_ left: JSONString, _ right: JSONString, rule: StrictJSONReader.NameRule) -> Bool {
        if !left.hasEscapes, !right.hasEscapes {
            if left.raw.elementsEqual(right.raw) { return true }
            if rule == .codePoints || (left.isASCII && right.isASCII) { return false }
        }
        let leftBytes = left.unescaped()
        let rightBytes = right.unescaped()
        if leftBytes == rightBytes { return true }
        guard rule == .canonicalEquivalence, leftBytes.contains(where: { $0 >= 0x80 }) || rightBytes.contains(where: { $0 >= 0x80 }) else {
            return false
        }
        return String(decoding: leftBytes, as: UTF8.self) == String(decoding: rightBytes, as: UTF8.self)
    }

    private static func string(_ entry: Entry, in bytes: UnsafeBufferPointer<UInt8>) -> JSONString {
        JSONString(raw: bytes[entry.start..<entry.end], hasEscapes: entry.hasEscapes, isASCII: entry.isASCII)
    }
}

extension StrictJSONReader {
    /// Throws when `name` repeats a name of the innermost object (`quote`: its opening quote).
    mutating func checkUnique(_ name: JSONString, at quote: Int) throws(StrictJSONError) {
        guard let earlier = names.insert(name, in: bytes, rule: nameRule) else { return }
        throw StrictJSONError(.duplicateName(name.text, earlier: earlier.text), at: quote)
    }
}
