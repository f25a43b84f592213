/// What a request may do, as decided from its credential and the scope its route needs.
public enum AccessDecision: Sendable, Equatable {
    /// Go ahead.
    case allowed
    /// No credential, or one that does not authenticate: answer 401 with the challenge.
    case unauthenticated(TokenRejection)
    /// A valid credential without the scope the route needs: answer 403 with the challenge.
    case forbidden(needs: Scope)

    /// The HTTP status to answer with instead of serving: 401, 403, or nil when allowed.
    public var status: Int? {
        switch self {
        case .allowed: nil
        case .unauthenticated: 401
        case .forbidden: 403
        }
    }

    /// The `WWW-Authenticate` field value for a refusal (RFC 6750 §3), nil when allowed:
    /// `Bearer realm="…"` when no credential was sent; with `error="invalid_token"` and an
    /// `error_description` for a credential that does not authenticate; with
    /// `error="insufficient_scope"` and the needed `scope` for a 403. Never contains a token.
    public func challenge(realm: String) -> String? {
        let head = "Bearer realm=\"\(Self.quotable(realm))\""
        switch self {
        case .allowed:
            return nil
        case .unauthenticated(let rejection) where rejection.code == .missing:
            return head
        case .unauthenticated(let rejection):
            return head + ", error=\"invalid_token\", error_description=\"\(Self.quotable(rejection.message))\""
        case .forbidden(let scope):
            return head + ", error=\"insufficient_scope\", scope=\"\(scope.name)\""
        }
    }

    /// `text` restricted to what RFC 6750 allows inside its quoted strings (printable ASCII
    /// without `"` and `\`); anything else is dropped.
    static func quotable(_ text: String) -> String {
        String(decoding: text.utf8.filter { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }, as: UTF8.self)
    }
}
