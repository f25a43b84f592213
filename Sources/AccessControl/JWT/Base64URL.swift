/// Base64url without padding (RFC 4648 §5, as JWS uses it, RFC 7515 §2): strict decoding.
///
/// Refused: padding (`=`), the standard alphabet's `+` and `/`, whitespace, a length that leaves
/// one lone character, and unused low bits that are not zero — so every byte string has exactly
/// one accepted spelling and a signed token cannot be re-spelled.
enum Base64URL {
    /// The number of bytes `count` characters decode to, or nil when no base64url text has that
    /// length (a remainder of one character).
    static func decodedCount(ofEncodedCount count: Int) -> Int? {
        switch count % 4 {
        case 0: count / 4 * 3
        case 2: count / 4 * 3 + 1
        case 3: count / 4 * 3 + 2
        default: nil
        }
    }

    /// Decodes `text` into `output`, which must hold ``decodedCount(ofEncodedCount:)`` bytes;
    /// false when `text` is not strict base64url.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard let count = decodedCount(ofEncodedCount: text.count), output.count >= count else { return false }
        var accumulator: UInt32 = 0
        var bits = 0
        var written = 0
        for character in text {
            let value = sextet(character)
            guard value != invalid else { return false }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                written += 1
            }
        }
        // Whatever is left are the unused low bits of the last character: they must be zero.
        return accumulator & ((1 << UInt32(bits)) - 1) == 0
    }

    /// Decodes `text` into a new array; nil when it is not strict base64url.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard let count = decodedCount(ofEncodedCount: characters.count) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let decoded = characters.withUnsafeBufferPointer { text in
            bytes.withUnsafeMutableBufferPointer { decode(text, into: $0) }
        }
        return decoded ? bytes : nil
    }

    /// Encodes `bytes` without padding.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var text: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                text.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 {
            text.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let invalid: UInt8 = 0xFF

    /// The value of a base64url character, ``invalid`` for bytes outside the alphabet. (A switch:
    /// measured twice as fast here as a lookup in a global table.)
    private static func sextet(_ character: UInt8) -> UInt8 {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: invalid
        }
    }
}
