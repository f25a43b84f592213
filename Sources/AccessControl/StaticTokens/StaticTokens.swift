/// Static bearer tokens from configuration, each with its scopes, kept only as SHA-256 digests.
///
/// A lookup hashes the presented token once and compares that digest with every configured one
/// in constant time, without stopping at a match: neither the position of a match nor the number
/// of right leading characters shows in the time taken. There is no dictionary keyed by tokens.
/// A token verified once is remembered by a keyed fingerprint (``VerifiedTokenCache``): the next
/// requests that present it skip the digest.
public struct StaticTokens: Sendable, CustomStringConvertible, CustomReflectable {
    /// One configured token: its digest and what it grants.
    struct Entry: Sendable {
        let digest: TokenDigest
        let scopes: ScopeSet
        /// The stores it reaches (every store unless its entry lists some).
        var stores: StoreReach = .everyStore
    }

    let entries: [Entry]
    /// The tokens verified so far, by fingerprint.
    let verified = VerifiedTokenCache()

    /// No static tokens.
    public static let none = StaticTokens(checkedEntries: [])

    init(checkedEntries: [Entry]) {
        entries = checkedEntries
    }

    /// Whether no token is configured.
    public var isEmpty: Bool { entries.isEmpty }

    /// How many tokens are configured.
    public var count: Int { entries.count }

    /// How many tokens there are; never their digests.
    public var description: String { "StaticTokens(\(entries.count))" }

    /// A mirror without the digests: a digest of a short token is enough to guess it offline.
    public var customMirror: Mirror { Mirror(self, children: ["count": entries.count]) }

    /// The scopes of `token`, or nil when it is not a configured token.
    public func scopes(for token: some StringProtocol) -> ScopeSet? {
        authorization(for: token)?.scopes
    }

    /// What `token` grants (its scopes and the stores it reaches), or nil when it is not a
    /// configured token.
    public func authorization(for token: some StringProtocol) -> Authorization? {
        // Without entries there is nothing to compare (and nothing to learn from the time).
        guard !entries.isEmpty else { return nil }
        let fingerprint = verified.fingerprint(of: token)
        if let remembered = verified.entry(for: fingerprint) {
            return Authorization(scopes: entries[remembered].scopes, stores: entries[remembered].stores)
        }
        let presented = TokenDigest(of: token)
        var found: UInt64 = 0
        var granted: UInt8 = 0
        // The matching entry's position, picked by mask like its scopes: no branch on the match.
        var matched = 0
        for (index, entry) in entries.enumerated() {
            let mask = presented.equalityMask(entry.digest)
            found |= mask
            granted |= UInt8(truncatingIfNeeded: mask) & entry.scopes.rawValue
            matched |= Int(truncatingIfNeeded: mask) & index
        }
        guard found != 0 else { return nil }
        verified.remember(fingerprint, entry: matched)
        return Authorization(scopes: ScopeSet(rawValue: granted), stores: entries[matched].stores)
    }

    /// Both sets of tokens (e.g. the environment's and a file's); a token in both is an error.
    public func merged(with other: StaticTokens) throws(AccessControlError) -> StaticTokens {
        let merged = entries + other.entries
        try Self.checkDistinct(merged) { first, second in
            "a static token is configured twice (entries \(first + 1) and \(second + 1) of the combined list)"
        }
        return StaticTokens(checkedEntries: merged)
    }

    /// Throws when two entries have the same digest; `describe` gets their positions.
    static func checkDistinct(_ entries: [Entry], describe: (Int, Int) -> String) throws(AccessControlError) {
        for second in entries.indices {
            for first in entries.indices[..<second] where entries[first].digest == entries[second].digest {
                throw AccessControlError(code: .invalidStaticTokens, message: describe(first, second))
            }
        }
    }
}
