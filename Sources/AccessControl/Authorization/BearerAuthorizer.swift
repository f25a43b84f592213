/// Decides whether a request's bearer credential grants the scope its route needs, from static
/// tokens and/or a JWT verifier. Knows nothing about HTTP servers: it reads strings and answers
/// an ``AccessDecision`` whose status and challenge the server sends.
///
/// A token is first compared with every static token (in constant time); when it is none of them
/// and a ``JWTVerifier`` is configured, a token with dots is verified as a JWT. With nothing
/// configured the authorizer is disabled and allows everything.
public struct BearerAuthorizer: Sendable, CustomStringConvertible {
    /// The configured static tokens (digests only).
    public let staticTokens: StaticTokens
    /// The JWT verifier, if JWTs are accepted.
    public let jwt: JWTVerifier?
    /// The realm of the challenges (`Bearer realm="…"`).
    public let realm: String
    /// The longest token looked at; longer ones are refused before hashing or decoding.
    public let maximumTokenLength: Int

    /// The realm unless configured.
    public static let defaultRealm = "remvvm"

    /// An authorizer over `staticTokens` and `jwt`; disabled when both are empty.
    public init(staticTokens: StaticTokens = .none, jwt: JWTVerifier? = nil, realm: String = defaultRealm) {
        self.staticTokens = staticTokens
        self.jwt = jwt
        self.realm = realm
        maximumTokenLength = jwt?.maximumTokenLength ?? JWTVerifier.defaultMaximumTokenLength
    }

    /// Whether any credential is configured; when not, every request is allowed.
    public var isEnabled: Bool { !staticTokens.isEmpty || jwt != nil }

    /// The decision for an `Authorization` field value (nil when the request has none).
    /// `Bearer <token>` only; any other form is an invalid credential (401), not an error.
    public func authorize(credential: String?, needs scope: Scope) -> AccessDecision {
        guard isEnabled else { return .allowed }
        guard let credential else { return .unauthenticated(Self.missing) }
        switch BearerToken.parse(authorization: credential) {
        case .success(let token): return decide(authenticate(token: token), needs: scope)
        case .failure(let rejection): return .unauthenticated(rejection)
        }
    }

    /// The decision for a bare token (from the `remvvmAuthorization` cookie or `?access_token=`;
    /// nil when the request has none). An empty token or one with characters outside RFC 6750
    /// `b64token` is an invalid credential.
    public func authorize(token: String?, needs scope: Scope) -> AccessDecision {
        guard isEnabled else { return .allowed }
        guard let token else { return .unauthenticated(Self.missing) }
        guard BearerToken.isValid(token) else { return .unauthenticated(Self.malformedToken) }
        return decide(authenticate(token: token[...]), needs: scope)
    }

    /// The scopes `token` grants, or why it does not authenticate. `token` is a `b64token`.
    public func authenticate(token: Substring) -> Result<ScopeSet, TokenRejection> {
        authorization(ofToken: token).map(\.scopes)
    }

    /// What `token` grants (scopes, stores, and until when: nil for a static token, which does
    /// not expire), or why it does not authenticate. `token` is a `b64token`.
    func authorization(ofToken token: Substring) -> Result<Authorization, TokenRejection> {
        guard token.utf8.count <= maximumTokenLength else { return .failure(JWTVerifier.tooLong) }
        if let granted = staticTokens.authorization(for: token) { return .success(granted) }
        guard let jwt, token.utf8.contains(UInt8(ascii: ".")) else { return .failure(Self.unknown) }
        do {
            let verified = try jwt.verify(token)
            return .success(Authorization(
                scopes: verified.scopes, stores: verified.stores, validUntil: verified.expiresAt + jwt.leewaySeconds
            ))
        } catch {
            return .failure(error)
        }
    }

    /// Until when `token` authenticates, in seconds since 1970: a JWT's `exp` plus the leeway it
    /// is verified with; nil for a static token (it does not expire) or one that does not
    /// authenticate. What an event stream opened with the token may last.
    public func validUntil(token: Substring) -> Double? {
        guard case .success(let granted) = authorization(ofToken: token) else { return nil }
        return granted.validUntil
    }

    /// Whether `authorization`, granted earlier, still holds now: a static token's always does, a
    /// JWT's until its `exp` plus the leeway, by the clock the JWT verifier reads.
    public func stillHolds(_ authorization: Authorization) -> Bool {
        guard let validUntil = authorization.validUntil else { return true }
        return (jwt?.now ?? JWTVerifier.systemClock)() < validUntil
    }

    /// The `WWW-Authenticate` value for `decision` in this authorizer's realm; nil when allowed.
    public func challenge(for decision: AccessDecision) -> String? {
        decision.challenge(realm: realm)
    }

    /// What is configured, never a token, digest or key.
    public var description: String {
        guard isEnabled else { return "BearerAuthorizer(disabled)" }
        let jwtPart = jwt.map { "; \($0)" } ?? ""
        return "BearerAuthorizer(\(staticTokens.count) static tokens\(jwtPart))"
    }

    private func decide(_ authentication: Result<ScopeSet, TokenRejection>, needs scope: Scope) -> AccessDecision {
        switch authentication {
        case .success(let scopes): scopes.grants(scope) ? .allowed : .forbidden(needs: scope)
        case .failure(let rejection): .unauthenticated(rejection)
        }
    }

    static let missing = TokenRejection(.missing, "no bearer token was sent")
    static let malformedToken = TokenRejection(.malformedCredential, "the token has characters outside RFC 6750 b64token")
    static let unknown = TokenRejection(.unknownToken, "the token is not valid")
}
