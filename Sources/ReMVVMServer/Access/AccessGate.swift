import AccessControl
import MicroHTTP

/// Who may call which route (docs/http-api.md, "Access control and CORS"): the service's side of
/// a ``AccessControl/BearerAuthorizer``, which knows tokens but not HTTP.
///
/// With tokens configured, every request but `/healthz`, the inspector's files (see
/// ``isOpen(path:)``) and CORS preflights (answered before the gate) needs a token, also on
/// unknown paths, so that a client without one cannot tell which paths exist: `read` for the
/// methods that cannot change anything (`GET`, `HEAD`, `OPTIONS`), `dispatch` for every other
/// (`POST /actions`; other methods then get their `405`); `GET /access` takes any valid token.
/// Listing stores and `PUT`/`DELETE /stores/{id}` need `manage`; a token limited to stores gets
/// `404 store-not-found` for a store outside its list, on `/stores/{id}…` and, for `default`, on
/// the root routes of the store (``needs(of:limited:underStores:)``).
/// The token comes from the `Authorization: Bearer` field; on event streams (`GET /events`, whose browser
/// client `EventSource` cannot set headers) also from the `remvvmAuthorization` cookie or
/// `?access_token=`. Credentials sent in several of those places must be the same token
/// (RFC 6750 §2 lets a client use one method only): different ones get `401`, never the access
/// either would grant. Elsewhere the cookie and the query are not read, so a cookie the browser
/// attaches on its own never authorizes a `POST`.
struct AccessGate: Sendable {
    let authorizer: BearerAuthorizer
    /// Whether tokens are configured; when not, the gate is not consulted at all (no work per
    /// request beyond reading this flag).
    let isEnabled: Bool
    /// This gate, told apart from other services' in the credentials it leaves in connection
    /// memos (``authorization(credential:on:)``).
    let identity = Identity()

    /// An object whose only use is its identity.
    final class Identity: Sendable {}

    /// The cookie that carries a token for event streams.
    static let cookieName = "remvvmAuthorization"
    /// The query parameter that carries a token for event streams.
    static let queryName = "access_token"

    /// A gate over `authorizer`; open when it has nothing configured.
    init(authorizer: BearerAuthorizer) {
        self.authorizer = authorizer
        isEnabled = authorizer.isEnabled
    }

    /// The open gate: no tokens configured.
    static let open = AccessGate(authorizer: BearerAuthorizer())

    /// The scope a request with `method` needs.
    static func scope(for method: HTTPMethod) -> Scope {
        method == .GET || method == .HEAD || method == .OPTIONS ? .read : .dispatch
    }

    /// Whether `path` is open to anyone: the liveness probe, which orchestrators call without
    /// credentials, and the inspector page and the thin client with their scripts and style sheets
    /// (``InspectorAssets``, ``AppAssets``): a browser navigating to `/inspector` cannot send a
    /// header, the files hold no data, and every data request the pages make carries the token.
    static func isOpen(path: String) -> Bool {
        GatedPath(path).isOpen
    }

    /// `GET /access`: any token that authenticates may ask what it allows, whatever its scopes.
    static var accessPath: String { "\(accessLiteral)" }
    /// ``accessPath`` as a literal, for ``GatedPath``.
    static let accessLiteral: StaticString = "/access"

    /// Whether a request may also carry its token in the cookie or the query: a `GET` (or `HEAD`)
    /// of an event stream: `/events`, `/viewmodels/events` or `/viewmodels/<name>/events`.
    static func acceptsCookieAndQuery(_ request: Request) -> Bool {
        acceptsCookieAndQuery(request, GatedPath(request.path))
    }

    /// ``acceptsCookieAndQuery(_:)`` for a request whose path is looked at already.
    static func acceptsCookieAndQuery(_ request: Request, _ path: GatedPath) -> Bool {
        path.isEventStream && (request.method == .GET || request.method == .HEAD)
    }

    /// What `request` may do: its credential authenticated once, then the scope its route needs
    /// and the store it reaches into checked (``needs(of:limited:underStores:)``).
    func verdict(for request: Request) -> Verdict {
        guard isEnabled else { return .decided(.allowed) }
        let path = GatedPath(request.path)
        guard !path.isOpen else { return .decided(.allowed) }
        let header: String?
        switch Self.authorizationField(of: request.headers) {
        case .none: header = nil
        case .one(let value): header = value
        case .conflicting: return .decided(.unauthenticated(Self.repeatedAuthorization))
        }
        guard Self.acceptsCookieAndQuery(request, path) else {
            if header == nil, Self.cookieToken(in: request.headers) != .none || request.query[Self.queryName] != nil {
                return .decided(.unauthenticated(Self.headerOnly))
            }
            if path.isAccess, request.method == .GET || request.method == .HEAD {
                return .decided(Self.authenticated(authorizer.authenticate(credential: header)))
            }
            return Self.verdict(authorization(credential: header, on: request.connectionMemo), for: request, underStores: path.isUnderStores)
        }
        return streamVerdict(header: header, request: request, underStores: path.isUnderStores)
    }

    /// The answer instead of serving `request`, or nil when it may be served.
    func refusal(for request: Request) -> Response? {
        let decision: AccessDecision
        switch verdict(for: request) {
        // Allowed is the usual answer: decided before the challenge, whose text (built before
        // it looks at the decision) cost every allowed request about 1,400 instructions.
        case .decided(.allowed): return nil
        case .decided(let refused): decision = refused
        case .outOfReach(let store): return Problem.storeNotFound(store).response
        }
        guard let challenge = authorizer.challenge(for: decision) else { return nil }
        switch decision {
        case .allowed:
            return nil
        case .unauthenticated(let rejection):
            return Problem.unauthorized(detail: Self.detail(rejection, request), challenge: challenge).response
        case .forbidden(let scope):
            return Problem.insufficientScope(
                scope.name, method: request.method.rawValue, path: request.path, challenge: challenge
            ).response
        }
    }

    /// Allowed when the credential authenticated, whatever it grants.
    private static func authenticated(_ result: Result<ScopeSet, TokenRejection>) -> AccessDecision {
        switch result {
        case .success: .allowed
        case .failure(let rejection): .unauthenticated(rejection)
        }
    }

    /// The verdict for an event stream, whose token may come from the header, the cookie or
    /// the query; all of those present must carry the same token.
    private func streamVerdict(header: String?, request: Request, underStores: Bool) -> Verdict {
        switch Self.streamToken(header: header, request: request) {
        case .success(let token):
            Self.verdict(authorizer.authorization(token: token.map(String.init)), for: request, underStores: underStores)
        case .failure(let rejection): .decided(.unauthenticated(rejection))
        }
    }

    /// The token of an event stream's request, from the header, the cookie or the query (nil
    /// when none is sent), or why it cannot be told.
    private static func streamToken(header: String?, request: Request) -> Result<Substring?, TokenRejection> {
        var token: Substring?
        if let header {
            switch BearerToken.parse(authorization: header) {
            case .success(let parsed): token = parsed
            case .failure(let rejection): return .failure(rejection)
            }
        }
        switch cookieToken(in: request.headers) {
        case .none:
            break
        case .conflicting:
            return .failure(disagreeing)
        case .one(let cookie):
            if let token, token != cookie { return .failure(disagreeing) }
            token = token ?? cookie[...]
        }
        // Every ?access_token= counts, like every cookie: a repeated one must agree too.
        for query in request.queryValues(named: queryName) {
            if let token, token != query { return .failure(disagreeing) }
            token = token ?? query[...]
        }
        return .success(token)
    }

    /// Until when the event stream `request` opens may last, in seconds since 1970: the `exp`
    /// (plus leeway) of the JWT it was allowed with; nil for a static token, without tokens, or
    /// for a request that is no stream. A stream must not outlive its token: refused at once on
    /// any other request from then on, it would otherwise go on sending every change for ever.
    func streamValidUntil(for request: Request) -> Double? {
        guard isEnabled, Self.acceptsCookieAndQuery(request) else { return nil }
        // Conflicting header fields were refused before the stream opened.
        let header: String? = if case .one(let value) = Self.authorizationField(of: request.headers) { value } else { nil }
        guard case .success(let token?) = Self.streamToken(header: header, request: request) else { return nil }
        return authorizer.validUntil(token: token)
    }

    /// The problem's `detail` for a 401: the rejection's fixed text, and where a token goes
    /// when none was sent.
    private static func detail(_ rejection: TokenRejection, _ request: Request) -> String {
        guard rejection.code == .missing, rejection != headerOnly else { return rejection.message }
        return acceptsCookieAndQuery(request)
            ? "this request needs a token: Authorization: Bearer <token>, the \(cookieName) cookie, or ?\(queryName)=<token>"
            : "this request needs a token: Authorization: Bearer <token>"
    }

    static let repeatedAuthorization = TokenRejection(
        .malformedCredential, "more than one Authorization field was sent"
    )
    static let disagreeing = TokenRejection(
        .malformedCredential,
        "the Authorization field, the remvvmAuthorization cookie and access_token carry different tokens; send one (RFC 6750 2)"
    )
    static let headerOnly = TokenRejection(
        .missing,
        "the remvvmAuthorization cookie and access_token count only for GET event streams (/events, /viewmodels/…/events); send Authorization: Bearer <token>"
    )
}
