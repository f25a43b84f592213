extension StaticTokens {
    /// Parses the environment form `TOKEN=SCOPE[+SCOPE][@STORE[+STORE]],…`, e.g.
    /// `s3cret=read+dispatch,look=read,guest=read+dispatch@lobby+room-*`.
    ///
    /// After `@` comes the list of stores the token reaches: exact store ids and prefixes ending
    /// in `*`, joined with `+`; without `@` the token reaches every store, with `@` and nothing
    /// after it no store.
    /// Each token must be an RFC 6750 `b64token` (so it can travel in a header, a cookie or a query
    /// without escaping); a token may end in `=` padding, since an entry is split at its last `=`.
    /// Empty entries, empty or repeated tokens and unknown scopes are errors that name the entry's
    /// position, never the token. A blank string configures no token.
    public init(environment text: String) throws(AccessControlError) {
        guard !text.trimmingASCIIWhitespace().isEmpty else {
            self = .none
            return
        }
        var entries: [Entry] = []
        for (offset, item) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let position = "static token \(offset + 1)"
            let (token, scopes) = try Self.splitEntry(item.trimmingASCIIWhitespace(), at: position)
            guard BearerToken.isValid(token) else {
                let hint = token.hasPrefix("sha256:") ? " (sha256: hashes belong in the token file)" : ""
                throw AccessControlError(
                    code: .invalidStaticTokens,
                    message: "\(position) has characters a Bearer token cannot hold (RFC 6750 b64token: A-Z a-z 0-9 - . _ ~ + / and trailing =)\(hint)"
                )
            }
            entries.append(Entry(digest: TokenDigest(of: token), scopes: scopes.scopes, stores: scopes.stores))
        }
        try Self.checkDistinct(entries) { "static tokens \($0 + 1) and \($1 + 1) are the same token" }
        self.init(checkedEntries: entries)
    }

    /// Parses the file form, which keeps only hashes: `sha256:<64 hex digits>=SCOPE[+SCOPE]`, with
    /// the same `@STORE[+STORE]` list as the environment form, one per line or several separated by commas; `#` starts a comment; blank lines are skipped.
    /// The digest is SHA-256 of the token's bytes (`printf %s "$TOKEN" | sha256sum`, or
    /// ``fileEntry(token:scopes:)``). Errors name the line, never its content.
    public init(hashFile text: String) throws(AccessControlError) {
        var entries: [Entry] = []
        var lines: [Int] = []
        // Any line break: "\r\n" is one Character, which splitting on "\n" never matched (a file
        // with Windows line endings was one line, cut short at its first comment).
        for (lineOffset, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !content.trimmingASCIIWhitespace().isEmpty else { continue }
            let position = "line \(lineOffset + 1) of the token file"
            for item in content.split(separator: ",", omittingEmptySubsequences: false) {
                let (hash, scopes) = try Self.splitEntry(item.trimmingASCIIWhitespace(), at: position)
                guard hash.hasPrefix("sha256:"), let digest = TokenDigest(hex: hash.dropFirst("sha256:".count)) else {
                    throw AccessControlError(
                        code: .invalidStaticTokens,
                        message: "\(position) is not sha256:<64 hex digits>=SCOPES (the file keeps hashes of tokens, not tokens)"
                    )
                }
                entries.append(Entry(digest: digest, scopes: scopes.scopes, stores: scopes.stores))
                lines.append(lineOffset + 1)
            }
        }
        try Self.checkDistinct(entries) { "lines \(lines[$0]) and \(lines[$1]) of the token file hold the same hash" }
        self.init(checkedEntries: entries)
    }

    /// The token file's line for `token` with `scopes`, limited to `stores` when they are not
    /// every store: what an operator writes instead of the token.
    public static func fileEntry(
        token: String, scopes: ScopeSet, stores: StoreReach = .everyStore
    ) throws(AccessControlError) -> String {
        guard BearerToken.isValid(token) else {
            throw AccessControlError(code: .invalidStaticTokens, message: "the token has characters a Bearer token cannot hold (RFC 6750 b64token)")
        }
        guard !scopes.isEmpty else {
            throw AccessControlError(code: .invalidScopes, message: "a static token needs at least one scope")
        }
        let limit = stores.isUnlimited ? "" : "@\(stores)"
        return "sha256:\(TokenDigest(of: token).hex)=\(scopes)\(limit)"
    }

    /// Splits `TOKEN=SCOPES[@STORES]` at the last `=` (tokens may end in `=`, scope names and
    /// store patterns never hold one).
    private static func splitEntry(
        _ entry: Substring, at position: String
    ) throws(AccessControlError) -> (Substring, (scopes: ScopeSet, stores: StoreReach)) {
        guard !entry.isEmpty else {
            throw AccessControlError(code: .invalidStaticTokens, message: "\(position) is empty (expected TOKEN=SCOPE[+SCOPE])")
        }
        guard let equals = entry.lastIndex(of: "=") else {
            throw AccessControlError(code: .invalidStaticTokens, message: "\(position) has no =SCOPE (expected TOKEN=SCOPE[+SCOPE])")
        }
        let token = entry[..<equals].trimmingASCIIWhitespace()
        guard !token.isEmpty else {
            throw AccessControlError(code: .invalidStaticTokens, message: "\(position) has an empty token")
        }
        let grant = entry[entry.index(after: equals)...]
        let at = grant.firstIndex(of: "@")
        let scopes: ScopeSet
        do {
            scopes = try ScopeSet(configuration: grant[..<(at ?? grant.endIndex)])
        } catch {
            throw AccessControlError(code: error.code, message: "\(position): \(error.message)")
        }
        guard let at else { return (Substring(token), (scopes, .everyStore)) }
        return (Substring(token), (scopes, try storeList(grant[grant.index(after: at)...], at: position)))
    }

    /// The stores of `list`, `STORE[+STORE]…` (empty: no store). The error names the entry and
    /// the pattern's position in the list, never the pattern (it could be a misplaced token).
    private static func storeList(_ list: Substring, at position: String) throws(AccessControlError) -> StoreReach {
        let trimmed = list.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { return .noStore }
        let patterns = trimmed.split(separator: "+", omittingEmptySubsequences: false).map { $0.trimmingASCIIWhitespace() }
        do {
            return try StoreReach(patterns: patterns)
        } catch {
            let index = patterns.firstIndex { (try? StoreReach(patterns: [$0])) == nil } ?? 0
            throw AccessControlError(
                code: .invalidStores,
                message: "\(position): store \(index + 1) after @: \(error.message)"
            )
        }
    }
}
