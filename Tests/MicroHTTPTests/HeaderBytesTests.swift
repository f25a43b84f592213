@testable import MicroHTTP
import Testing

/// The byte-level helpers of header handling: the `tchar` table and case-insensitive names.
@Suite struct HeaderBytesTests {
    /// RFC 9110 §5.6.2: letters, digits and ``FramingFields/tokenPunctuation``; nothing else, no
    /// byte above 127.
    @Test func theTokenMasksHoldExactlyTheTokenBytes() {
        let punctuation = Set(FramingFields.tokenPunctuation.utf8)
        #expect(punctuation.count == 15)
        for byte in UInt8.min...UInt8.max {
            let isLetterOrDigit = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            #expect(FramingFields.isTokenByte(byte) == (isLetterOrDigit || punctuation.contains(byte)), "byte \(byte)")
        }
    }

    @Test(arguments: [
        ("Content-Type", true), ("x", true), ("!#$%&'*+-.^_`|~09azAZ", true),
        ("", false), ("Content Type", false), ("Content-Type:", false), ("Caf\u{E9}", false), ("a\u{0}b", false),
    ])
    func aFieldNameIsATokenOnlyWhenEveryByteIsATokenByte(name: String, isToken: Bool) {
        #expect(Array(name.utf8).withUnsafeBytes { FramingFields.isToken($0) } == isToken)
    }

    @Test(arguments: [
        ("Content-Type", "content-type", true),
        ("CONTENT-TYPE", "Content-Type", true),
        ("Content-Type", "Content-Typf", false),
        ("Content-Type", "Content-Typ", false),
        // Bytes 0x20 apart that are not letters are different bytes: `^` and `~`, `@` and `` ` ``.
        ("X-^", "X-~", false),
        ("X-@", "X-`", false),
        ("", "", true),
        ("Idempotency-Key-With-A-Long-Name", "idempotency-key-with-a-long-name", true),
        ("Idempotency-Key-With-A-Long-Name", "idempotency-key-with-a-long-namf", false),
    ])
    func namesCompareIgnoringTheCaseOfLettersOnly(left: String, right: String, equal: Bool) {
        #expect(left.equalsCaseInsensitively(right) == equal)
        #expect(right.equalsCaseInsensitively(left) == equal)
    }

    @Test func theFirstValueSaysWhetherTheFieldIsRepeated() {
        let headers = HTTPHeaders([("authorization", "Bearer a"), ("Host", "x"), ("AUTHORIZATION", "Bearer b")])
        #expect(headers.firstValue(named: "Authorization")?.value == "Bearer a")
        #expect(headers.firstValue(named: "Authorization")?.isRepeated == true)
        #expect(headers.firstValue(named: "host")?.value == "x")
        #expect(headers.firstValue(named: "host")?.isRepeated == false)
        #expect(headers.firstValue(named: "Cookie") == nil)
    }

    @Test func aListFieldJoinsItsLinesAndIsNilWhenAbsent() {
        let headers = HTTPHeaders([("If-Match", "\"1\""), ("Host", "x"), ("if-match", "\"2\", \"3\"")])
        #expect(headers.list("If-Match") == "\"1\", \"2\", \"3\"")
        #expect(headers.list("Host") == "x")
        #expect(headers.list("If-None-Match") == nil)
        #expect(headers.values(for: "IF-MATCH") == ["\"1\"", "\"2\", \"3\""])
    }
}
