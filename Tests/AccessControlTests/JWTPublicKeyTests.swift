@testable import AccessControl
import Crypto
import Foundation
import Testing
import _CryptoExtras

/// ES256 and RS256 tokens, and algorithm confusion: a public key is never an HMAC secret.
@Suite struct JWTPublicKeyTests {
    private let es256PEM = TestTokens.p256.publicKey.pemRepresentation
    private let rs256PEM = TestTokens.rsa.publicKey.pemRepresentation

    @Test func aValidES256TokenGrantsItsScopes() throws {
        let verifier = try TestTokens.verifier(try JWTKey.es256(publicKeyPEM: es256PEM))
        #expect(try verifier.verify(try TestTokens.es256(TestTokens.claims(scope: "dispatch"))).scopes == .dispatch)
    }

    @Test func anES256TokenFromAnotherKeyOrInDERFormIsRefused() throws {
        let verifier = try TestTokens.verifier(try JWTKey.es256(publicKeyPEM: es256PEM))
        let foreign = try TestTokens.es256(TestTokens.claims(), key: P256.Signing.PrivateKey())
        #expect(TestTokens.rejection(verifier, foreign)?.code == .invalidSignature)

        let input = TestTokens.signingInput(header: TestTokens.header("ES256"), payload: TestTokens.claims())
        let der = try TestTokens.p256.signature(for: Array(input.utf8)).derRepresentation
        #expect(TestTokens.rejection(verifier, input + "." + Base64URL.encode(der))?.code == .invalidSignature)
    }

    @Test func aValidRS256TokenGrantsItsScopes() throws {
        let verifier = try TestTokens.verifier(try JWTKey.rs256(publicKeyPEM: rs256PEM))
        #expect(try verifier.verify(try TestTokens.rs256(TestTokens.claims(scope: "read"))).scopes == .read)
    }

    @Test func anRS256TokenWithPSSPaddingOrATamperedPayloadIsRefused() throws {
        let verifier = try TestTokens.verifier(try JWTKey.rs256(publicKeyPEM: rs256PEM))
        let pss = try TestTokens.rs256(TestTokens.claims(), padding: .PSS)
        #expect(TestTokens.rejection(verifier, pss)?.code == .invalidSignature)

        let parts = try TestTokens.rs256(TestTokens.claims(scope: "read")).split(separator: ".").map(String.init)
        let widened = Base64URL.encode(Array(TestTokens.claims().utf8))
        #expect(TestTokens.rejection(verifier, [parts[0], widened, parts[2]].joined(separator: "."))?.code == .invalidSignature)
    }

    @Test(arguments: ["ES256", "RS256"])
    func anHS256TokenSignedWithThePublicKeyPEMIsRefused(configured: String) throws {
        let pem = configured == "ES256" ? es256PEM : rs256PEM
        let verifier = try TestTokens.verifier(try JWTKey.publicKey(pem: pem))
        #expect(verifier.keys.map(\.algorithm.rawValue) == [configured])
        // The classic confusion attack: the public key's PEM text used as the HMAC secret.
        for secret in [pem, pem.trimmingCharacters(in: .whitespacesAndNewlines)] {
            let forged = TestTokens.hs256(TestTokens.claims(), secret: secret)
            let rejection = TestTokens.rejection(verifier, forged)
            #expect(rejection?.code == .unsupportedAlgorithm)
        }
    }

    @Test func withASecretAndAPublicKeyThePEMStillCannotSignHS256() throws {
        let verifier = try TestTokens.verifier(try JWTKey.hs256(secret: TestTokens.secret), try JWTKey.es256(publicKeyPEM: es256PEM))
        #expect(TestTokens.rejection(verifier, TestTokens.hs256(TestTokens.claims(), secret: es256PEM))?.code == .invalidSignature)
        #expect(try verifier.verify(TestTokens.hs256(TestTokens.claims())).scopes == [.read, .dispatch])
        #expect(try verifier.verify(try TestTokens.es256(TestTokens.claims())).scopes == [.read, .dispatch])
        #expect(TestTokens.rejection(verifier, try TestTokens.rs256(TestTokens.claims()))?.code == .unsupportedAlgorithm)
    }

    @Test func anES256TokenIsRefusedByAnRS256VerifierAndTheOtherWayRound() throws {
        let es = try TestTokens.verifier(try JWTKey.es256(publicKeyPEM: es256PEM))
        let rs = try TestTokens.verifier(try JWTKey.rs256(publicKeyPEM: rs256PEM))
        #expect(TestTokens.rejection(es, try TestTokens.rs256(TestTokens.claims()))?.code == .unsupportedAlgorithm)
        #expect(TestTokens.rejection(rs, try TestTokens.es256(TestTokens.claims()))?.code == .unsupportedAlgorithm)
        // Relabelled: an ES256 signature under an RS256 header fails the RSA check.
        let relabelled = try TestTokens.es256(TestTokens.claims(), header: TestTokens.header("RS256"))
        #expect(TestTokens.rejection(rs, relabelled)?.code == .invalidSignature)
    }

    @Test func aPublicKeyFileIsRecognisedByItsKeyType() throws {
        #expect(try JWTKey.publicKey(pem: es256PEM).algorithm == .es256)
        #expect(try JWTKey.publicKey(pem: rs256PEM).algorithm == .rs256)
        #expect(try JWTKey.publicKey(pem: TestTokens.rsa.publicKey.pkcs1PEMRepresentation).algorithm == .rs256)
        #expect(throws: AccessControlError.self) { try JWTKey.publicKey(pem: "not a key") }
        #expect(throws: AccessControlError.self) { try JWTKey.es256(publicKeyPEM: rs256PEM) }
        #expect(throws: AccessControlError.self) { try JWTKey.rs256(publicKeyPEM: es256PEM) }
        #expect(throws: AccessControlError.self) { try JWTKey.publicKey(pem: TestTokens.p256.pemRepresentation) }
    }
}
