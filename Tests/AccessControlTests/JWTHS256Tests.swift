@testable import AccessControl
import Crypto
import Testing

/// HS256 tokens: the signature, the `alg` header, `crit`, and the secret's length.
@Suite struct JWTHS256Tests {
    @Test func aValidTokenGrantsItsScopes() throws {
        let verifier = try TestTokens.hs256Verifier()
        let verified = try verifier.verify(TestTokens.hs256(TestTokens.claims(scope: "read")))
        #expect(verified == VerifiedToken(scopes: .read, expiresAt: TestTokens.now + 3600))
        #expect(try verifier.verify(TestTokens.hs256(TestTokens.claims())).scopes == [.read, .dispatch])
    }

    @Test func oneVerifierServesConcurrentTasks() async throws {
        // The HS256 key keeps a keyed HMAC state that every verification copies: concurrent
        // copies must neither corrupt it nor accept a wrong signature.
        let verifier = try TestTokens.hs256Verifier()
        let good = TestTokens.hs256(TestTokens.claims())
        let bad = TestTokens.hs256(TestTokens.claims(), secret: "another-secret-of-at-least-32-bytes!!")
        let outcomes = await withTaskGroup(of: [Bool].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<500).map { index in
                        let accepted = (try? verifier.verify(index.isMultiple(of: 2) ? good : bad)) != nil
                        return accepted == index.isMultiple(of: 2)
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0 += $1 }
        }
        #expect(outcomes.count == 4000)
        #expect(outcomes.allSatisfy { $0 })
    }

    @Test func aTokenSignedWithAnotherSecretIsRefused() throws {
        let token = TestTokens.hs256(TestTokens.claims(), secret: "another-secret-of-at-least-32-bytes!!")
        #expect(TestTokens.rejection(try TestTokens.hs256Verifier(), token)?.code == .invalidSignature)
    }

    @Test func aTamperedPayloadOrSignatureIsRefused() throws {
        let verifier = try TestTokens.hs256Verifier()
        let token = TestTokens.hs256(TestTokens.claims(scope: "read"))
        let parts = token.split(separator: ".").map(String.init)
        let widened = Base64URL.encode(Array(TestTokens.claims(scope: "read dispatch").utf8))
        #expect(TestTokens.rejection(verifier, [parts[0], widened, parts[2]].joined(separator: "."))?.code == .invalidSignature)

        var signature = Base64URL.decode(parts[2]) ?? []
        signature[31] ^= 1
        #expect(TestTokens.rejection(verifier, [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: "."))?.code == .invalidSignature)
        #expect(TestTokens.rejection(verifier, [parts[0], parts[1], Base64URL.encode(signature.dropLast())].joined(separator: "."))?.code == .invalidSignature)
    }

    @Test(arguments: ["none", "None", "NONE", "nOnE"])
    func unsignedTokensAreRefusedInAnyCase(alg: String) throws {
        let verifier = try TestTokens.hs256Verifier()
        let input = TestTokens.signingInput(header: #"{"alg":"\#(alg)"}"#, payload: TestTokens.claims())
        // The RFC 7519 unsecured form (empty signature) and any other signature: the alg is refused.
        for signature in ["", "AAAA"] {
            let rejection = TestTokens.rejection(verifier, input + "." + signature)
            #expect(rejection?.code == .unsupportedAlgorithm)
            #expect(rejection?.message == "unsigned JWTs (alg none) are refused")
        }
        // Escaped spellings of none are none too.
        let escaped = TestTokens.signingInput(header: #"{"alg":"\u006e\u006f\u006e\u0065"}"#, payload: TestTokens.claims())
        #expect(TestTokens.rejection(verifier, escaped + ".AAAA")?.code == .unsupportedAlgorithm)
        // A token signed correctly but labelled none is still refused.
        #expect(TestTokens.rejection(verifier, TestTokens.hs256(TestTokens.claims(), header: #"{"alg":"\#(alg)"}"#))?.code == .unsupportedAlgorithm)
    }

    @Test(arguments: [#"{"alg":"HS512"}"#, #"{"alg":"hs256"}"#, #"{"alg":"ES256"}"#, #"{"alg":"RS256"}"#, #"{"alg":"HS256 "}"#])
    func anAlgorithmOtherThanTheConfiguredOneIsRefused(header: String) throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: header)
        #expect(TestTokens.rejection(try TestTokens.hs256Verifier(), token)?.code == .unsupportedAlgorithm)
    }

    @Test(arguments: [#"{"typ":"JWT"}"#, #"{"alg":256}"#, #"{"alg":null}"#, #"{"alg":["HS256"]}"#])
    func aMissingOrNonStringAlgIsRefused(header: String) throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: header)
        #expect(TestTokens.rejection(try TestTokens.hs256Verifier(), token)?.code == .unsupportedAlgorithm)
    }

    @Test func anEscapedButEqualAlgIsAccepted() throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: #"{"\u0061lg":"HS\u0032\u00356"}"#)
        #expect(try TestTokens.hs256Verifier().verify(token).scopes == [.read, .dispatch])
    }

    @Test func aRepeatedAlgIsRefused() throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: #"{"alg":"HS256","alg":"none"}"#)
        #expect(TestTokens.rejection(try TestTokens.hs256Verifier(), token)?.code == .malformedToken)
    }

    @Test(arguments: [#"{"alg":"HS256","crit":["exp"],"exp":1}"#, #"{"alg":"HS256","crit":[]}"#, #"{"crit":["b64"],"b64":false,"alg":"HS256"}"#])
    func criticalHeaderExtensionsAreRefused(header: String) throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: header)
        #expect(TestTokens.rejection(try TestTokens.hs256Verifier(), token)?.code == .criticalHeader)
    }

    @Test func otherHeaderParametersAreIgnored() throws {
        let token = TestTokens.hs256(TestTokens.claims(), header: #"{"typ":"at+jwt","kid":"k1","jku":"https://evil.example","alg":"HS256","x":{"y":[1]}}"#)
        #expect(try TestTokens.hs256Verifier().verify(token).scopes == [.read, .dispatch])
    }

    @Test func aSecretShorterThan256BitsIsAConfigurationError() throws {
        #expect(throws: AccessControlError.self) { try JWTKey.hs256(secret: "s3cret") }
        #expect(throws: AccessControlError.self) { try JWTKey.hs256(secret: [UInt8](repeating: 7, count: 31)) }
        #expect(try JWTKey.hs256(secret: [UInt8](repeating: 7, count: 32)).algorithm == .hs256)
    }

    @Test func aVerifierNeedsOneKeyPerAlgorithmAndSaneSettings() throws {
        let key = try JWTKey.hs256(secret: TestTokens.secret)
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: []) }
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: [key, key]) }
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: [key], leeway: .seconds(-1)) }
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: [key], maximumTokenLength: 0) }
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: [key], issuer: "") }
        #expect(throws: AccessControlError.self) { try JWTVerifier(keys: [key], audience: "") }
    }
}
