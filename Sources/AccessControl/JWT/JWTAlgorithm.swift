/// The JWS algorithms a ``JWTVerifier`` can check (RFC 7518 §3.1); `none` is not one of them.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HMAC with SHA-256 and a shared secret.
    case hs256 = "HS256"
    /// ECDSA with P-256 and SHA-256, verified with a public key.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, verified with a public key.
    case rs256 = "RS256"

    /// The `alg` header value, e.g. `HS256`.
    public var description: String { rawValue }

    /// The algorithm whose `alg` value is exactly `bytes` (JOSE names are case-sensitive).
    static func named(_ bytes: some Collection<UInt8>) -> JWTAlgorithm? {
        if bytes.elementsEqual("HS256".utf8) { return .hs256 }
        if bytes.elementsEqual("ES256".utf8) { return .es256 }
        if bytes.elementsEqual("RS256".utf8) { return .rs256 }
        return nil
    }
}
