@testable import AccessControl
import Testing

/// ``Base64URL``: unpadded, strict, one spelling per byte string.
@Suite struct Base64URLTests {
    @Test func everyLengthRoundTrips() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(Base64URL.decode(text) == bytes, "\(count) bytes")
        }
    }

    @Test func theAlphabetIsTheURLSafeOne() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("e30") == Array("{}".utf8))
    }

    @Test(arguments: [
        "e30=", "e3==", "+/+/", "ab/c", "e3 0", " e30", "e30\n", "a", "abcde", "e3.0", "e31", "AB", "ABC", "éé",
    ])
    func paddingOtherAlphabetsWhitespaceLoneCharactersAndNonzeroUnusedBitsAreRefused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func theCanonicalSpellingsOfShortInputsAreAccepted() {
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("") == [])
    }
}
