extension String {
    /// Whether both strings have the same UTF-8 bytes, that is the same code points. Swift's `==`
    /// compares by canonical equivalence (`"é"` precomposed equals `"e\u{301}"`); JSON does not.
    package func hasSameCodePoints(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        if case let same?? = fast {
            return same
        }
        return utf8.elementsEqual(other.utf8)
    }

    /// Feeds the string's UTF-8 bytes to `hasher`: a hash that agrees with ``hasSameCodePoints(as:)``
    /// (Swift's own `hash(into:)` agrees with `==`, canonical equivalence).
    package func hashCodePoints(into hasher: inout Hasher) {
        hasher.combine(utf8.count)
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
    }

    /// The order of two strings by their UTF-8 bytes (code point order): negative, zero or positive.
    func compareCodePoints(with other: String) -> Int {
        let fast = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in Self.compare(mine, theirs) }
        }
        if case let order?? = fast {
            return order
        }
        return Self.compare(Array(utf8), Array(other.utf8))
    }

    private static func compare(_ left: some RandomAccessCollection<UInt8>, _ right: some RandomAccessCollection<UInt8>) -> Int {
        for (l, r) in zip(left, right) where l != r {
            return l < r ? -1 : 1
        }
        return left.count - right.count
    }
}

/// A string compared and hashed by its code points (its UTF-8 bytes), not by canonical
/// equivalence as `String` is: for names and keys a client tells apart by their bytes (JSON
/// member names, view-model keys).
package struct CodePointString: Hashable, Sendable {
    /// The string.
    package let text: String

    package init(_ text: String) {
        self.text = text
    }

    package static func == (lhs: CodePointString, rhs: CodePointString) -> Bool {
        lhs.text.hasSameCodePoints(as: rhs.text)
    }

    package func hash(into hasher: inout Hasher) {
        text.hashCodePoints(into: &hasher)
    }
}
