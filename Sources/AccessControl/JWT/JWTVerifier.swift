import Foundation

/// Verifies compact JWS JSON Web Tokens (RFC 7515, RFC 7519) with configured keys, one per
/// algorithm, and reads the scopes they grant.
///
/// A token passes when, in this order: it is at most ``maximumTokenLength`` bytes; it is three
/// strict base64url segments; its header is a JSON object whose `alg` names a configured key's
/// algorithm (never `none`, in any case) and has no `crit`; the signature verifies with that key;
/// its payload is a JSON object with a numeric `exp` (required: the contract's tokens expire)
/// not yet passed, an `nbf` (optional, numeric) already reached, both within ``leeway``; and
/// `iss` / `aud` match when an issuer / audience is configured. Claims this verifier reads may
/// not appear twice. `scope` is a space-separated string (RFC 8693) or an array of names, as is
/// `scp`; both count; unknown names grant nothing.
public struct JWTVerifier: Sendable, CustomStringConvertible {
    /// The keys, at most one per algorithm; a token's `alg` chooses among them.
    public let keys: [JWTKey]
    /// The required `iss`, if any.
    public let issuer: String?
    /// The audience `aud` must name, if any.
    public let audience: String?
    /// How far `exp` and `nbf` may be off, for clocks that disagree.
    public let leeway: Duration
    /// The longest token accepted, in bytes; longer ones are refused before any decoding.
    public let maximumTokenLength: Int

    let leewaySeconds: Double
    let now: @Sendable () -> Double

    /// The leeway unless configured: one minute.
    public static let defaultLeeway = Duration.seconds(60)
    /// The length limit unless configured: 8 KiB.
    public static let defaultMaximumTokenLength = 8 * 1024

    /// The wall clock: seconds since 1970-01-01T00:00:00Z.
    public static let systemClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// A verifier with `keys` (at least one, at most one per algorithm). `clock` returns the
    /// current time in seconds since 1970; tests pass a fixed one.
    public init(
        keys: [JWTKey],
        issuer: String? = nil,
        audience: String? = nil,
        leeway: Duration = defaultLeeway,
        maximumTokenLength: Int = defaultMaximumTokenLength,
        clock: @escaping @Sendable () -> Double = systemClock
    ) throws(AccessControlError) {
        guard !keys.isEmpty else {
            throw AccessControlError(code: .invalidKey, message: "JWT verification needs at least one key")
        }
        for algorithm in JWTAlgorithm.allCases where keys.filter({ $0.algorithm == algorithm }).count > 1 {
            throw AccessControlError(code: .invalidKey, message: "more than one \(algorithm) key is configured; configure one per algorithm")
        }
        guard leeway >= .zero else {
            throw AccessControlError(code: .invalidSetting, message: "the JWT leeway must not be negative")
        }
        guard maximumTokenLength > 0 else {
            throw AccessControlError(code: .invalidSetting, message: "the JWT length limit must be positive")
        }
        if let issuer, issuer.isEmpty {
            throw AccessControlError(code: .invalidSetting, message: "the required JWT issuer is empty")
        }
        if let audience, audience.isEmpty {
            throw AccessControlError(code: .invalidSetting, message: "the required JWT audience is empty")
        }
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.maximumTokenLength = maximumTokenLength
        let parts = leeway.components
        leewaySeconds = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        now = clock
    }

    /// The algorithms accepted and the checks configured; never key material.
    public var description: String {
        var parts = ["algorithms: \(keys.map(\.algorithm.rawValue).joined(separator: ", "))"]
        if let issuer { parts.append("issuer: \(issuer)") }
        if let audience { parts.append("audience: \(audience)") }
        parts.append("leeway: \(leeway)")
        return "JWTVerifier(\(parts.joined(separator: "; ")))"
    }

    /// The grant of `token`, or why it is refused.
    public func verify(_ token: some StringProtocol) throws(TokenRejection) -> VerifiedToken {
        let utf8 = token.utf8
        guard utf8.count <= maximumTokenLength else { throw Self.tooLong }
        let result = utf8.withContiguousStorageIfAvailable { verify(bytes: $0) }
            ?? Array(utf8).withUnsafeBufferPointer { verify(bytes: $0) }
        return try result.get()
    }

    /// The key for the algorithm `alg` names, if one is configured.
    func key(for algorithm: JWTAlgorithm) -> JWTKey? {
        keys.first { $0.algorithm == algorithm }
    }

    static let tooLong = TokenRejection(.tooLong, "the token is longer than the configured limit")
}
