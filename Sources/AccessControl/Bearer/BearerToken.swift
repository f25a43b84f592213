/// The RFC 6750 Bearer credential syntax: which strings can be tokens, and the
/// `Authorization: Bearer <token>` field.
public enum BearerToken {
    /// Whether `token` is an RFC 6750 `b64token`: one or more of `A–Z a–z 0–9 - . _ ~ + /`,
    /// then any number of `=`. Every token this module accepts has this form, so a token is never
    /// something a header, a cookie or a log line could split or misread.
    public static func isValid(_ token: some StringProtocol) -> Bool {
        token.utf8.withContiguousStorageIfAvailable(isValid(bytes:)) ?? Array(token.utf8).withUnsafeBufferPointer(isValid(bytes:))
    }

    /// ``isValid(_:)`` over UTF-8 bytes.
    static func isValid(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
        guard index > 0 else { return false }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        return index == bytes.count
    }

    /// The token of an `Authorization` field value: `Bearer` (any case), one or more spaces, one
    /// `b64token`. Leading and trailing spaces and tabs are ignored (HTTP's optional whitespace).
    /// Anything else — another scheme, `Bearer` alone, two tokens, characters outside `b64token` —
    /// is a ``TokenRejection/Code/malformedCredential``.
    public static func parse(authorization field: String) -> Result<Substring, TokenRejection> {
        let found = field.utf8.withContiguousStorageIfAvailable(tokenRange(in:))
            ?? Array(field.utf8).withUnsafeBufferPointer(tokenRange(in:))
        guard let found else { return .failure(Self.malformed) }
        let utf8 = field.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: found.lowerBound)
        let end = utf8.index(start, offsetBy: found.count)
        return .success(field[start..<end])
    }

    /// The byte range of the token in an `Authorization` field value, or nil when the value is
    /// not `Bearer <b64token>`. Works on bytes in place: this runs on every request.
    static func tokenRange(in field: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = 0
        var end = field.count
        while start < end, isOptionalWhitespace(field[start]) { start += 1 }
        while start < end, isOptionalWhitespace(field[end - 1]) { end -= 1 }
        var cursor = start
        for expected in "bearer".utf8 {
            // `| 0x20` folds ASCII upper case to lower case; no other byte maps onto a letter.
            guard cursor < end, field[cursor] | 0x20 == expected else { return nil }
            cursor += 1
        }
        guard cursor < end, field[cursor] == UInt8(ascii: " ") else { return nil }
        while cursor < end, field[cursor] == UInt8(ascii: " ") { cursor += 1 }
        guard isValid(bytes: UnsafeBufferPointer(rebasing: field[cursor..<end])) else { return nil }
        return cursor..<end
    }

    static let malformed = TokenRejection(
        .malformedCredential, "the Authorization field must be Bearer followed by one token (RFC 6750)"
    )

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
