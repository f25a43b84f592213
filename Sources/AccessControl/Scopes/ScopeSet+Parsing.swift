extension ScopeSet {
    /// Parses the configuration form `SCOPE[+SCOPE]…` (e.g. `read+dispatch`).
    ///
    /// Configuration is strict: an empty list, an empty name (`read+`) or an unknown name is an
    /// error. It counts the unknown names but never shows them: a misplaced `=` can put a token
    /// where a scope was expected (`dispatch=s3cretToken`).
    public init(configuration text: some StringProtocol) throws(AccessControlError) {
        var scopes = ScopeSet()
        var unknown = 0
        for name in text.split(separator: "+", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingASCIIWhitespace()
            guard !trimmed.isEmpty else {
                throw AccessControlError(code: .invalidScopes, message: "a scope list has an empty scope name (expected read, dispatch, manage or a list like read+dispatch)")
            }
            if let scope = Scope.named(trimmed.utf8) {
                scopes.insert(ScopeSet(scope))
            } else {
                unknown += 1
            }
        }
        guard unknown == 0 else {
            let known = Scope.allCases.map(\.name).joined(separator: ", ")
            let names = unknown == 1 ? "a scope name that is not known" : "\(unknown) scope names that are not known"
            throw AccessControlError(
                code: .invalidScopes,
                message: "\(names) (not shown: it may be a token put where a scope belongs; known scopes: \(known))"
            )
        }
        self = scopes
    }

    /// Parses a JWT `scope` claim: names separated by spaces (RFC 8693 §4.2, RFC 6749 §3.3).
    ///
    /// Tokens are lenient where configuration is strict: unknown names are ignored (they grant
    /// nothing), as are repeated spaces.
    public init(claim: some StringProtocol) {
        self.init(claimBytes: claim.utf8)
    }

    /// ``init(claim:)`` over UTF-8 bytes, without building a string per name.
    init<Bytes: Collection<UInt8>>(claimBytes bytes: Bytes) {
        var scopes = ScopeSet()
        var start = bytes.startIndex
        // A walk instead of `split`, which would build an array for every token.
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
            if let scope = Scope.named(bytes[start..<end]) { scopes.insert(ScopeSet(scope)) }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        self = scopes
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs, carriage returns and newlines.
    func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
