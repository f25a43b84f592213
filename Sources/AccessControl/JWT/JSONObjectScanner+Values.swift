extension JSONObjectScanner {
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
}
