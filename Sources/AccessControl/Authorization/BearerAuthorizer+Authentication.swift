extension BearerAuthorizer {
    /// The scopes the token in an `Authorization` field value grants (nil when the request has
    /// none), or why it does not authenticate; no particular scope is needed. With nothing
    /// configured every request may do everything: ``ScopeSet/all``.
    ///
    /// For routes that any valid token may call whatever its scopes, such as `GET /access`,
    /// which tells a client what its token allows.
    public func authenticate(credential: String?) -> Result<ScopeSet, TokenRejection> {
        authorization(credential: credential).map(\.scopes)
    }
}

extension BearerAuthorizer {
    /// What the token in an `Authorization` field value grants — scopes and the stores it
    /// reaches — or why it does not authenticate (also when the request has none: `credential`
    /// nil). With nothing configured: ``Authorization/unrestricted``, without looking at the
    /// field. The routes of many stores ask the result ``Authorization/reaches(storeID:)`` and
    /// ``Authorization/may(_:)``.
    public func authorization(credential: String?) -> Result<Authorization, TokenRejection> {
        guard isEnabled else { return .success(.unrestricted) }
        guard let credential else { return .failure(Self.missing) }
        switch BearerToken.parse(authorization: credential) {
        case .success(let token): return authorization(ofToken: token)
        case .failure(let rejection): return .failure(rejection)
        }
    }

    /// ``authorization(credential:)`` for a bare token (the `remvvmAuthorization` cookie or
    /// `?access_token=` of an event stream; nil when the request has none).
    public func authorization(token: String?) -> Result<Authorization, TokenRejection> {
        guard isEnabled else { return .success(.unrestricted) }
        guard let token else { return .failure(Self.missing) }
        guard BearerToken.isValid(token) else { return .failure(Self.malformedToken) }
        return authorization(ofToken: token[...])
    }
}
