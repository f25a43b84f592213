/// A string of a JSON text as it appears between its quotes, escapes not yet resolved: checked
/// (escapes, surrogate pairs, UTF-8) when it was read, resolved only when asked.
public struct JSONString {
    /// The bytes between the quotes.
    public let raw: Slice<UnsafeBufferPointer<UInt8>>
    /// Whether `raw` holds escapes (`\n`, `\u00e9`, …).
    public let hasEscapes: Bool
    /// Whether `raw` is all ASCII (escapes may still stand for other characters).
    public let isASCII: Bool

    /// A string read by ``StrictJSONReader``.
    init(raw: Slice<UnsafeBufferPointer<UInt8>>, hasEscapes: Bool, isASCII: Bool) {
        self.raw = raw
        self.hasEscapes = hasEscapes
        self.isASCII = isASCII
    }

    /// Whether the string, escapes resolved, is exactly `expected`'s bytes.
    public func equals(_ expected: some Collection<UInt8>) -> Bool {
        hasEscapes ? unescaped().elementsEqual(expected) : raw.elementsEqual(expected)
    }

    /// The string's UTF-8 bytes with escapes resolved (the raw bytes when there are none).
    public func unescaped() -> [UInt8] {
        guard hasEscapes else { return Array(raw) }
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = Self.hexQuad(raw, at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // The reader checked that a low surrogate escape follows.
                    let low = Self.hexQuad(raw, at: index + 2)
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                // Checked by the reader: no lone surrogate, so always a scalar.
                if let unicode = Unicode.Scalar(scalar) {
                    UTF8.encode(unicode) { output.append($0) }
                }
            default: output.append(escape)  // \" \\ \/
            }
        }
        return output
    }

    /// The string, escapes resolved.
    public var text: String {
        hasEscapes
            ? String(decoding: unescaped(), as: UTF8.self)
            : String(decoding: UnsafeBufferPointer(rebasing: raw), as: UTF8.self)
    }

    /// The value of four hexadecimal digits at `start` (already checked).
    static func hexQuad(_ text: Slice<UnsafeBufferPointer<UInt8>>, at start: Int) -> UInt32 {
        (start..<(start + 4)).reduce(UInt32(0)) { $0 << 4 | UInt32(hexValue(text[$1]) ?? 0) }
    }

    /// The value of one hexadecimal digit, nil for any other byte.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
