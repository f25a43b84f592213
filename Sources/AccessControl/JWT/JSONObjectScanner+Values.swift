extension JSONObjectScanner {
    /// A string as it appears in the input, between the quotes, escapes not yet resolved.
    struct StringSlice {
        let raw: Slice<UnsafeBufferPointer<UInt8>>
        let hasEscapes: Bool

        /// Whether the string, escapes resolved, is exactly `expected`'s UTF-8.
        func equals(_ expected: some Collection<UInt8>) -> Bool {
            hasEscapes ? unescaped().elementsEqual(expected) : raw.elementsEqual(expected)
        }

        /// The string's bytes with escapes resolved (the raw bytes when there are none).
        func unescaped() -> [UInt8] {
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
                    var scalar = JSONObjectScanner.hexQuad(raw, at: index)
                    index += 4
                    if (0xD800...0xDBFF).contains(scalar) {
                        // The scanner checked that a low surrogate escape follows.
                        let low = JSONObjectScanner.hexQuad(raw, at: index + 2)
                        index += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    // Checked by the scanner: not a lone surrogate, so always a scalar.
                    if let unicode = Unicode.Scalar(scalar) {
                        output.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
                    }
                default: output.append(escape) // \" \\ \/
                }
            }
            return output
        }
    }

    /// A member's value: strings and numbers as slices to read, the rest only by kind.
    enum Value {
        case string(StringSlice)
        case number(Slice<UnsafeBufferPointer<UInt8>>)
        case array(Slice<UnsafeBufferPointer<UInt8>>)
        case object
        case bool(Bool)
        case null

        /// The number as a `Double`, when the value is a number. Plain integers of up to 15
        /// digits (every NumericDate in practice) are read directly, exactly; other forms
        /// go through the standard library's parser.
        var double: Double? {
            guard case .number(let text) = self else { return nil }
            if text.count <= 15, text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                return Double(text.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) })
            }
            return Double(String(decoding: text, as: UTF8.self))
        }
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
