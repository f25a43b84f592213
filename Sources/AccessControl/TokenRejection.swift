/// Why a credential does not authenticate: the reason behind a 401.
///
/// ``message`` is written for the client's developer (it becomes `error_description` and the
/// problem's `detail`) and is always one of a fixed set of texts: it never contains the token,
/// a part of it, a secret or a key, so it is also safe to log.
public struct TokenRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which check failed.
    public let code: Code
    /// A fixed text for the client's developer, without secrets; safe in a quoted-string.
    public let message: String

    /// A rejection with a fixed `message`, e.g. for a check the caller makes itself (a cookie
    /// and a header that disagree). `StaticString` admits only literals, so no token, secret or
    /// other request content can end up in the message.
    public init(_ code: Code, _ message: StaticString) {
        self.code = code
        self.message = message.description
    }

    /// The message.
    public var description: String { message }
}

extension TokenRejection {
    /// The kinds of rejection, one per check.
    public enum Code: Sendable, Equatable {
        /// No credential was sent.
        case missing
        /// The `Authorization` field is not `Bearer <token>` with one RFC 6750 token.
        case malformedCredential
        /// The token is neither a configured static token nor a JWT (or JWTs are not configured).
        case unknownToken
        /// The token is longer than the configured limit.
        case tooLong
        /// The JWT is not three base64url segments holding a JSON object header and payload.
        case malformedToken
        /// The JWT's `alg` is `none`, missing or not the configured algorithm.
        case unsupportedAlgorithm
        /// The JWT's header has `crit` extensions, which this verifier does not understand.
        case criticalHeader
        /// The JWT's signature does not verify with the configured key.
        case invalidSignature
        /// A claim has the wrong type, or `exp` is missing.
        case invalidClaims
        /// `exp` (plus the leeway) has passed.
        case expired
        /// `nbf` (minus the leeway) is still in the future.
        case notYetValid
        /// `iss` is not the configured issuer.
        case wrongIssuer
        /// `aud` does not name the configured audience.
        case wrongAudience
    }
}
