extension JWTVerifier {
    /// The claims this verifier reads; each may appear once.
    private enum Claim: UInt8 {
        case exp = 1, nbf = 2, iss = 4, aud = 8, scope = 16, scp = 32, stores = 64

        /// The claim `name` is, compared in place (no array of candidates, no string built).
        init?(_ name: JSONObjectScanner.StringSlice) {
            if name.equals("exp".utf8) { self = .exp }
            else if name.equals("nbf".utf8) { self = .nbf }
            else if name.equals("iss".utf8) { self = .iss }
            else if name.equals("aud".utf8) { self = .aud }
            else if name.equals("scope".utf8) { self = .scope }
            else if name.equals("scp".utf8) { self = .scp }
            else if name.equals(JWTVerifier.storesClaim.utf8) { self = .stores }
            else { return nil }
        }
    }

    /// The grant of a payload whose signature verified: its types, times, issuer and audience.
    func readClaims(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<VerifiedToken, TokenRejection> {
        var scanner = JSONObjectScanner(bytes)
        var seen: UInt8 = 0
        var expiry: Double?
        var notBefore: Double?
        var scopes = ScopeSet()
        var stores = StoreReach.everyStore
        var issuerMatches = issuer == nil
        var audienceMatches = audience == nil
        scan: while true {
            switch scanner.next() {
            case .malformed:
                return .failure(scanner.repeatsAName ? Self.repeatedMember : Self.badPayload)
            case .end:
                break scan
            case .member(let name, let value):
                guard let claim = Claim(name) else { continue }
                guard seen & claim.rawValue == 0 else { return .failure(Self.repeatedMember) }
                seen |= claim.rawValue
                switch claim {
                case .exp, .nbf:
                    guard let seconds = value.double, seconds.isFinite else { return .failure(Self.badTime) }
                    if claim == .exp { expiry = seconds } else { notBefore = seconds }
                case .iss:
                    guard case .string(let text) = value else { return .failure(Self.badIssuer) }
                    if let issuer { issuerMatches = text.equals(issuer.utf8) }
                case .aud:
                    guard let matches = names(value, include: audience) else { return .failure(Self.badAudience) }
                    audienceMatches = audienceMatches || matches
                case .scope, .scp:
                    guard let granted = Self.scopes(value) else { return .failure(Self.badScope) }
                    scopes.formUnion(granted)
                case .stores:
                    guard let listed = Self.stores(value) else { return .failure(Self.badStores) }
                    stores = listed
                }
            }
        }
        guard let expiry else { return .failure(Self.noExpiry) }
        let now = now()
        guard now < expiry + leewaySeconds else { return .failure(Self.expired) }
        if let notBefore, now + leewaySeconds < notBefore { return .failure(Self.notYetValid) }
        guard issuerMatches else { return .failure(Self.wrongIssuer) }
        guard audienceMatches else { return .failure(Self.wrongAudience) }
        return .success(VerifiedToken(scopes: scopes, expiresAt: expiry, stores: stores))
    }

    /// Whether `aud` (a string or an array of strings) names `expected`; nil for another type.
    private func names(_ value: JSONObjectScanner.Value, include expected: String?) -> Bool? {
        switch value {
        case .string(let text):
            return expected.map { text.equals($0.utf8) } ?? false
        case .array(let elements):
            var found = false
            let allStrings = JSONObjectScanner.forEachString(inArray: elements) { text in
                if let expected, !found { found = text.equals(expected.utf8) }
            }
            return allStrings ? found : nil
        default:
            return nil
        }
    }

    /// The known scopes of a `scope`/`scp` value: a space-separated string or an array of names;
    /// nil for another type.
    private static func scopes(_ value: JSONObjectScanner.Value) -> ScopeSet? {
        switch value {
        case .string(let text):
            return text.hasEscapes ? ScopeSet(claimBytes: text.unescaped()) : ScopeSet(claimBytes: text.raw)
        case .array(let elements):
            var scopes = ScopeSet()
            let allStrings = JSONObjectScanner.forEachString(inArray: elements) { text in
                let scope = text.hasEscapes ? Scope.named(text.unescaped()) : Scope.named(text.raw)
                if let scope { scopes.insert(ScopeSet(scope)) }
            }
            return allStrings ? scopes : nil
        default:
            return nil
        }
    }

    /// The stores of a `remvvm_stores` value: an array of store ids and prefixes (`room-*`; an
    /// empty array reaches no store); nil for another type or a string that names no store.
    private static func stores(_ value: JSONObjectScanner.Value) -> StoreReach? {
        guard case .array(let elements) = value else { return nil }
        var patterns: [String] = []
        let allStrings = JSONObjectScanner.forEachString(inArray: elements) { text in
            patterns.append(String(decoding: text.unescaped(), as: UTF8.self))
        }
        guard allStrings else { return nil }
        return try? StoreReach(patterns: patterns)
    }

    /// The claim that limits a token to stores.
    static let storesClaim = "remvvm_stores"

    static let badStores = TokenRejection(
        .invalidClaims, "the JWT remvvm_stores claim must be an array of store ids and prefixes ending in * (e.g. [\"lobby\", \"room-*\"])"
    )
    static let badPayload = TokenRejection(.malformedToken, "the JWT payload is not a JSON object")
    static let badTime = TokenRejection(.invalidClaims, "the JWT exp and nbf claims must be numbers")
    static let badIssuer = TokenRejection(.invalidClaims, "the JWT iss claim must be a string")
    static let badAudience = TokenRejection(.invalidClaims, "the JWT aud claim must be a string or an array of strings")
    static let badScope = TokenRejection(.invalidClaims, "the JWT scope and scp claims must be a string or an array of strings")
    static let noExpiry = TokenRejection(.invalidClaims, "the JWT has no exp claim; tokens must expire")
    static let expired = TokenRejection(.expired, "the JWT has expired")
    static let notYetValid = TokenRejection(.notYetValid, "the JWT is not valid yet (nbf)")
    static let wrongIssuer = TokenRejection(.wrongIssuer, "the JWT iss claim is not the expected issuer")
    static let wrongAudience = TokenRejection(.wrongAudience, "the JWT aud claim does not name this server")
}
