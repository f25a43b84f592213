import Crypto

/// The SHA-256 digest of a static token, as four words, compared in constant time.
///
/// Only digests are kept, never tokens: a memory dump or a configuration file of hashes does not
/// give a token away, and comparing digests does not reveal, by its duration, how many leading
/// characters of a guess were right.
struct TokenDigest: Sendable, Equatable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `token`'s UTF-8 bytes (read in place when the string is contiguous).
    init(of token: some StringProtocol) {
        let digest = token.utf8.withContiguousStorageIfAvailable { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
            ?? SHA256.hash(data: Array(token.utf8))
        self.init(digest)
    }

    /// The words of a computed digest.
    init(_ digest: SHA256Digest) {
        words = digest.withUnsafeBytes { bytes in
            (Self.word(bytes, 0), Self.word(bytes, 8), Self.word(bytes, 16), Self.word(bytes, 24))
        }
    }

    /// The digest as 64 lowercase hexadecimal digits, the form of the token file.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 60, through: 0, by: -4) {
                text.append(digits[Int(word >> UInt64(shift) & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A digest written as 64 hexadecimal digits (either case); nil for anything else.
    init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var values = [UInt64](repeating: 0, count: 4)
        for (offset, digit) in digits.enumerated() {
            guard let nibble = Self.nibble(digit) else { return nil }
            values[offset / 16] = values[offset / 16] << 4 | UInt64(nibble)
        }
        words = (values[0], values[1], values[2], values[3])
    }

    /// All 64 bits set when `self == other`, zero otherwise, computed without a branch on the
    /// bytes: every word is always compared, so the time does not depend on where they differ.
    func equalityMask(_ other: TokenDigest) -> UInt64 {
        let difference = (words.0 ^ other.words.0) | (words.1 ^ other.words.1)
            | (words.2 ^ other.words.2) | (words.3 ^ other.words.3)
        // (d | -d) has the top bit set exactly when d != 0.
        let isDifferent = (difference | (0 &- difference)) >> 63
        return isDifferent &- 1
    }

    static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        lhs.equalityMask(rhs) != 0
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
