/// The value of a JSON number literal, exactly, for comparing literals written differently
/// (`1`, `1.0`, `10e-1`, `0.1E1`); never converted to a binary floating point number, so
/// `1e400` and `1e401` stay different and `100000000000000000001` is not `100000000000000000000`.
///
/// The value is `±0.d₁d₂…dₙ × 10^exponent` with no leading or trailing zero digit; zero has no
/// digits and no sign. Exponents beyond about ±10¹⁸ saturate (literals that large compare equal
/// when their digits do).
struct JSONNumber: Equatable {
    let isNegative: Bool
    let digits: [UInt8]
    let exponent: Int

    /// The value of `literal`, which must follow the RFC 8259 number grammar (the parser checked).
    init(_ literal: String) {
        let bytes = Array(literal.utf8)
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index += 1 }
        var digits: [UInt8] = []
        var pointExponent = 0
        var seenPoint = false
        while index < bytes.count, bytes[index] != UInt8(ascii: "e"), bytes[index] != UInt8(ascii: "E") {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ".") {
                seenPoint = true
                continue
            }
            if digits.isEmpty && byte == UInt8(ascii: "0") {
                if seenPoint { pointExponent -= 1 }  // 0.001: each zero after the point shifts
                continue
            }
            digits.append(byte)
            if !seenPoint { pointExponent += 1 }
        }
        var written = 0
        if index < bytes.count {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let limit = Int.max / 4
            while index < bytes.count {
                let digit = Int(bytes[index] - UInt8(ascii: "0"))
                written = written > limit / 10 ? limit : min(limit, written * 10 + digit)
                index += 1
            }
            if exponentNegative { written = -written }
        }
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
        }
        self.digits = digits
        isNegative = negative && !digits.isEmpty
        exponent = digits.isEmpty ? 0 : pointExponent + written
    }
}
