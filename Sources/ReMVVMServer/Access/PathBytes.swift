/// Comparisons of a path's UTF-8 bytes with literals, over plain pointers: through
/// `elementsEqual` over slices (or a `String`'s UTF-8 view) each cost several times as much, and
/// the access gate and the event-stream paths ask a few of them of every request's path.
extension Slice<UnsafeBufferPointer<UInt8>> {
    /// Whether the bytes are exactly `literal`'s.
    func equals(_ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount && matches(literal, atOffset: 0)
    }

    /// Whether the bytes begin with `literal`'s.
    func starts(with literal: StaticString) -> Bool {
        matches(literal, atOffset: 0)
    }

    /// Whether the bytes end with `literal`'s.
    func ends(with literal: StaticString) -> Bool {
        matches(literal, atOffset: count - literal.utf8CodeUnitCount)
    }

    /// Whether `literal`'s bytes are `offset` bytes into the slice, wholly within it.
    @inline(__always)
    private func matches(_ literal: StaticString, atOffset offset: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard offset >= 0, count - offset >= length, let start = base.baseAddress.map({ $0 + startIndex + offset }) else {
            return length == 0 && offset >= 0 && offset <= count
        }
        let expected = literal.utf8Start
        for index in 0..<length where start[index] != expected[index] {
            return false
        }
        return true
    }
}
