extension BearerAuthorizer {
    /// The scopes the token in an `Authorization` field value grants (nil when the request has
    /// none), or why it does not authenticate; no particular scope is needed. With nothing
    /// configured every request may do everything: ``ScopeSet/all``.
    ///
    /// For routes that any valid token may call whatever its scopes, such as `GET /access`,
    /// which tells a client what its token allows.
    public func authenticate(credential: String?) -> Result<ScopeSet, TokenRejection> {
        guard isEnabled else { return .success(.all) }
        guard let credential else { return .failure(Self.missing) }
        switch BearerToken.parse(authorization: credential) {
        case .success(let token): return authenticate(token: token)
        case .failure(let rejection): return .failure(rejection)
        }
    }
}
