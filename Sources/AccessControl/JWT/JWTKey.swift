import Crypto
import _CryptoExtras

/// A key that verifies JWT signatures, bound to exactly one algorithm.
///
/// The binding is what defeats algorithm confusion: a public key is only ever used to verify
/// ES256 or RS256 signatures, never as an HMAC secret, whatever a token's header says. The key
/// material never appears in `description`, `debugDescription` or a mirror (`dump`).
public struct JWTKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Material: Sendable {
        /// The HMAC state after absorbing the padded key: copied per token, so the key schedule
        /// (and its allocations) is paid once, not on every request.
        case hmac(HMAC<SHA256>)
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    let material: Material

    /// The one algorithm this key verifies.
    public var algorithm: JWTAlgorithm {
        switch material {
        case .hmac: .hs256
        case .p256: .es256
        case .rsa: .rs256
        }
    }

    /// The fewest secret bytes an HS256 key may have: RFC 7518 §3.2 requires a key at least as
    /// long as the hash output (256 bits).
    public static let minimumSecretByteCount = 32

    /// An HS256 key from the shared secret's bytes (at least ``minimumSecretByteCount``).
    public static func hs256(secret: some Collection<UInt8>) throws(AccessControlError) -> JWTKey {
        guard secret.count >= minimumSecretByteCount else {
            throw AccessControlError(
                code: .invalidKey,
                message: "the HS256 secret has \(secret.count) bytes; at least \(minimumSecretByteCount) are required (RFC 7518 3.2)"
            )
        }
        return JWTKey(material: .hmac(HMAC<SHA256>(key: SymmetricKey(data: Array(secret)))))
    }

    /// An HS256 key from the shared secret's UTF-8 bytes (at least ``minimumSecretByteCount``).
    public static func hs256(secret: String) throws(AccessControlError) -> JWTKey {
        try hs256(secret: Array(secret.utf8))
    }

    /// An ES256 key from a P-256 public key in PEM (`-----BEGIN PUBLIC KEY-----`).
    public static func es256(publicKeyPEM pem: String) throws(AccessControlError) -> JWTKey {
        do {
            return JWTKey(material: .p256(try P256.Signing.PublicKey(pemRepresentation: pem)))
        } catch {
            throw AccessControlError(code: .invalidKey, message: "the ES256 key is not a P-256 public key in PEM")
        }
    }

    /// An RS256 key from an RSA public key (2048 bits or more) in PEM, SubjectPublicKeyInfo
    /// (`BEGIN PUBLIC KEY`) or PKCS #1 (`BEGIN RSA PUBLIC KEY`).
    public static func rs256(publicKeyPEM pem: String) throws(AccessControlError) -> JWTKey {
        do {
            return JWTKey(material: .rsa(try _RSA.Signing.PublicKey(pemRepresentation: pem)))
        } catch {
            throw AccessControlError(code: .invalidKey, message: "the RS256 key is not an RSA public key of at least 2048 bits in PEM")
        }
    }

    /// The key in `pem`, whichever kind it is: a P-256 key verifies ES256, an RSA key RS256.
    /// For a single setting such as a public-key file that may hold either.
    public static func publicKey(pem: String) throws(AccessControlError) -> JWTKey {
        if let key = try? es256(publicKeyPEM: pem) { return key }
        if let key = try? rs256(publicKeyPEM: pem) { return key }
        throw AccessControlError(
            code: .invalidKey,
            message: "the public key is neither a P-256 (ES256) nor an RSA key of at least 2048 bits (RS256) in PEM"
        )
    }

    /// The algorithm, never the key material.
    public var description: String { "JWTKey(\(algorithm))" }

    /// The algorithm, never the key material.
    public var debugDescription: String { description }

    /// A mirror without children, so that `dump` does not print the key material.
    public var customMirror: Mirror { Mirror(self, children: ["algorithm": algorithm]) }
}
