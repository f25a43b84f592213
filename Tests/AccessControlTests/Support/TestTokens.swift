@testable import AccessControl
import Crypto
import Foundation
import _CryptoExtras

/// Builds JWTs for the tests: any header and payload text, signed with test keys.
enum TestTokens {
    /// The fixed "now" of every verifier in the tests: 2027-01-15T08:00:00Z.
    static let now: Double = 1_800_000_000

    /// A clock that always answers ``now``.
    static let clock: @Sendable () -> Double = { now }

    /// A 32-byte HS256 secret.
    static let secret = "0123456789abcdef0123456789abcdef-hs256-test-secret"

    /// One P-256 key pair for all tests.
    static let p256 = P256.Signing.PrivateKey()

    /// One RSA key pair for all tests (generating one takes a while).
    static let rsa: _RSA.Signing.PrivateKey = {
        // Key generation only fails for unsupported sizes; 2048 bits is supported.
        do { return try _RSA.Signing.PrivateKey(keySize: .bits2048) } catch { fatalError("RSA key generation: \(error)") }
    }()

    /// The usual header for `alg`.
    static func header(_ alg: String) -> String { #"{"alg":"\#(alg)","typ":"JWT"}"# }

    /// Claims valid at ``now``: an hour left, `scope` as given.
    static func claims(scope: String = "read dispatch", extra: String = "") -> String {
        #"{"sub":"tester","exp":\#(Int(now) + 3600),"scope":"\#(scope)"\#(extra)}"#
    }

    /// `base64url(header).base64url(payload)`: the signing input.
    static func signingInput(header: String, payload: String) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
    }

    /// An HS256 token over `payload` with `secret` (any bytes, e.g. a PEM text for confusion tests).
    static func hs256(_ payload: String, secret: String = secret, header: String = header("HS256")) -> String {
        let input = signingInput(header: header, payload: payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return input + "." + Base64URL.encode(Array(mac))
    }

    /// An ES256 token over `payload`, signed with ``p256`` (R || S form).
    static func es256(_ payload: String, key: P256.Signing.PrivateKey = p256, header: String = header("ES256")) throws -> String {
        let input = signingInput(header: header, payload: payload)
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// An RS256 token over `payload`, signed with ``rsa`` (PKCS #1 v1.5).
    static func rs256(
        _ payload: String, key: _RSA.Signing.PrivateKey = rsa, header: String = header("RS256"),
        padding: _RSA.Signing.Padding = .insecurePKCS1v1_5
    ) throws -> String {
        let input = signingInput(header: header, payload: payload)
        let signature = try key.signature(for: Array(input.utf8), padding: padding)
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// A verifier of `key` at the fixed ``now``.
    static func verifier(
        _ keys: JWTKey..., issuer: String? = nil, audience: String? = nil,
        leeway: Duration = JWTVerifier.defaultLeeway, maximumTokenLength: Int = JWTVerifier.defaultMaximumTokenLength
    ) throws -> JWTVerifier {
        try JWTVerifier(
            keys: keys, issuer: issuer, audience: audience, leeway: leeway,
            maximumTokenLength: maximumTokenLength, clock: clock
        )
    }

    /// The HS256 verifier of ``secret``.
    static func hs256Verifier(issuer: String? = nil, audience: String? = nil, leeway: Duration = JWTVerifier.defaultLeeway) throws -> JWTVerifier {
        try verifier(try JWTKey.hs256(secret: secret), issuer: issuer, audience: audience, leeway: leeway)
    }

    /// The rejection `verify` throws, or nil when it accepts.
    static func rejection(_ verifier: JWTVerifier, _ token: String) -> TokenRejection? {
        do {
            _ = try verifier.verify(token)
            return nil
        } catch {
            return error
        }
    }
}
