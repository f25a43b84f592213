@testable import AccessControl
import Testing

/// Tokens that are not well-formed compact JWS: segments, base64url, JSON, length.
@Suite struct JWTMalformedTests {
    private func code(_ token: String, verifier: JWTVerifier? = nil) throws -> TokenRejection.Code? {
        TestTokens.rejection(try verifier ?? TestTokens.hs256Verifier(), token)?.code
    }

    @Test func truncatedOrExtraSegmentsAreRefused() throws {
        let token = TestTokens.hs256(TestTokens.claims())
        let parts = token.split(separator: ".").map(String.init)
        for malformed in [
            parts[0], "\(parts[0]).\(parts[1])", "\(parts[0])..\(parts[2])", ".\(parts[1]).\(parts[2])",
            "\(token).", "\(token).\(parts[2])", "..", "", ".",
        ] {
            #expect(try code(malformed) == .malformedToken, "\(malformed.prefix(20))…")
        }
        #expect(try code("\(parts[0]).\(parts[1]).") == .invalidSignature, "an empty signature does not verify")
    }

    @Test(arguments: ["=", "+", "/", " ", "%", "é"])
    func badBase64urlInAnySegmentIsRefused(character: String) throws {
        let parts = TestTokens.hs256(TestTokens.claims()).split(separator: ".").map(String.init)
        for index in 0..<3 {
            var broken = parts
            broken[index] = String(broken[index].dropLast()) + character
            #expect(try code(broken.joined(separator: ".")) == .malformedToken, "segment \(index)")
        }
        #expect(try code(parts[0] + "=." + parts[1] + "." + parts[2]) == .malformedToken, "padding")
    }

    @Test(arguments: [#"["HS256"]"#, #""HS256""#, "42", "null", "not json", #"{"alg":"HS256""#, #"{"alg":"HS256",}"#, "", #"{"alg":"HS256"} {}"#])
    func aHeaderThatIsNotAJSONObjectIsRefused(header: String) throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: header)
        #expect(try code(token) == .malformedToken)
    }

    @Test(arguments: [#"["read"]"#, #""exp""#, "1800003600", "not json", #"{"exp":1800003600,}"#, #"{"exp":01800003600}"#])
    func aPayloadThatIsNotAJSONObjectIsRefusedEvenWhenSigned(payload: String) throws {
        #expect(try code(TestTokens.hs256(payload)) == .malformedToken)
    }

    @Test func aTokenLongerThanTheLimitIsRefusedBeforeDecoding() throws {
        let key = try JWTKey.hs256(secret: TestTokens.secret)
        let token = TestTokens.hs256(TestTokens.claims(extra: #","pad":"\#(String(repeating: "x", count: 9000))""#))
        #expect(try code(token) == .tooLong, "8 KiB by default")
        let tight = try TestTokens.verifier(key, maximumTokenLength: 200)
        let small = TestTokens.hs256(TestTokens.claims())
        #expect(small.utf8.count < 200)
        #expect(try code(small, verifier: tight) == nil)
        let padded = TestTokens.hs256(TestTokens.claims(extra: #","p":"\#(String(repeating: "x", count: 200))""#))
        #expect(try code(padded, verifier: tight) == .tooLong)
        #expect(try code(String(repeating: "A", count: 100_000)) == .tooLong, "not even split")
        let exact = try TestTokens.verifier(key, maximumTokenLength: small.utf8.count)
        #expect(try code(small, verifier: exact) == nil, "the limit itself is allowed")
    }

    @Test func aTokenFromABridgedOrSlicedStringIsReadTheSame() throws {
        let token = TestTokens.hs256(TestTokens.claims())
        let verifier = try TestTokens.hs256Verifier()
        let framed = "Bearer \(token) trailing"
        let slice = framed.dropFirst(7).prefix(token.utf8.count)
        #expect(try verifier.verify(slice).scopes == [.read, .dispatch])
    }
}
