extension String {
    /// Whether both strings have the same UTF-8 bytes, that is the same code points. Swift's `==`
    /// compares by canonical equivalence (`"é"` precomposed equals `"e\u{301}"`); JSON does not.
    func hasSameCodePoints(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        if case let same?? = fast {
            return same
        }
        return utf8.elementsEqual(other.utf8)
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
