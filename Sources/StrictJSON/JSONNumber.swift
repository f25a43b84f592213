/// A JSON number literal (already checked against the grammar) as a Swift number, exactly or not
/// at all: no integer from a literal with a fraction, none beyond the type's bounds, no infinity.
enum JSONNumber {
    /// The integer `literal` spells, however it is written (`100`, `1e2`, `100.0`, `1000e-1`); nil
    /// when it has a fraction or `T` cannot hold it.
    static func integer<T: FixedWidthInteger>(_ literal: UnsafeBufferPointer<UInt8>) -> T? {
        var index = 0
        let negative = literal.first == UInt8(ascii: "-")
        if negative { index += 1 }
        let integerStart = index
        while index < literal.count, StrictJSONReader.isDigit(literal[index]) { index += 1 }
        // The common case: digits only.
        if index == literal.count { return accumulate(literal, integerStart..<index, zeros: 0, negative: negative) }
        let integerEnd = index
        var fractionStart = index
        var fractionEnd = index
        if literal[index] == UInt8(ascii: ".") {
            fractionStart = index + 1
            index += 1
            while index < literal.count, StrictJSONReader.isDigit(literal[index]) { index += 1 }
            fractionEnd = index
        }
        var exponent = 0
        if index < literal.count {  // e or E
            index += 1
            let exponentNegative = literal[index] == UInt8(ascii: "-")
            if literal[index] == UInt8(ascii: "-") || literal[index] == UInt8(ascii: "+") { index += 1 }
            while index < literal.count {
                // Beyond a million the answer no longer changes (zero or too large): stop counting.
                exponent = min(exponent * 10 + Int(literal[index] - UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // The digits without the point, and where the point goes among them once shifted.
        let digits = Array(literal[integerStart..<integerEnd]) + Array(literal[fractionStart..<fractionEnd])
        let point = (integerEnd - integerStart) + exponent
        if digits[min(max(0, point), digits.count)...].contains(where: { $0 != UInt8(ascii: "0") }) { return nil }  // a fraction
        guard point > 0 else { return 0 }
        return digits.withUnsafeBufferPointer {
            accumulate($0, 0..<min(point, digits.count), zeros: max(0, point - digits.count), negative: negative)
        }
    }

    /// The decimal digits `digits[range]` followed by `zeros` zeros, negated if `negative`; nil on
    /// overflow.
    private static func accumulate<T: FixedWidthInteger>(
        _ digits: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, zeros: Int, negative: Bool
    ) -> T? {
        var value: T = 0
        for index in range {
            let digit = T(digits[index] - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            // Negative numbers are built downwards, so that T.min is reached.
            let (next, carry) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow || carry { return nil }
            value = next
        }
        if value == 0 { return 0 }
        for _ in 0..<zeros {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = shifted
        }
        return value
    }

    /// The nearest `T` to `literal`; nil when that is infinite, or zero for a literal that is not.
    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ literal: UnsafeBufferPointer<UInt8>) -> T? {
        guard let value = T(String(decoding: literal, as: UTF8.self)), value.isFinite else { return nil }
        if value == 0, !isZero(literal) { return nil }
        return value
    }

    /// Whether every digit of the literal's significand is zero.
    private static func isZero(_ literal: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in literal {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
            if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte) { return false }
        }
        return true
    }
}
