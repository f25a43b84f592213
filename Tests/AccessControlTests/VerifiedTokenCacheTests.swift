@testable import AccessControl
import Testing

/// ``VerifiedTokenCache``: a static token verified once is answered from its fingerprint after,
/// with the same authorization; unknown tokens are never remembered; more tokens than slots all
/// still authorize as configured.
@Suite struct VerifiedTokenCacheTests {
    @Test func aTokenPresentedAgainIsAnsweredFromItsFingerprintWithTheSameAuthorization() throws {
        let tokens = try StaticTokens(environment: "guest=read+dispatch@lobby+room-*, admin=read+dispatch+manage")
        #expect(!tokens.verified.remembers("guest"), "the first time, SHA-256 verifies it")
        let first = try #require(tokens.authorization(for: "guest"))
        #expect(tokens.verified.remembers("guest") && !tokens.verified.remembers("admin"))
        #expect(tokens.authorization(for: "guest") == first)
        let admin = try #require(tokens.authorization(for: "admin"))
        #expect(admin.scopes == [.read, .dispatch, .manage] && admin != first)
        #expect(tokens.verified.remembers("admin"))
        #expect(tokens.authorization(for: "admin") == admin)
        #expect(tokens.authorization(for: "guest"[...]) == first, "a substring is the same token")
    }

    @Test func anUnknownTokenIsNeverRememberedNorLetIn() throws {
        let tokens = try StaticTokens(environment: "s3cret=read")
        for _ in 0..<3 {
            #expect(tokens.authorization(for: "s3cre") == nil)
            #expect(tokens.authorization(for: "s3cret ") == nil)
        }
        #expect(!tokens.verified.remembers("s3cre") && !tokens.verified.remembers("s3cret "))
        #expect(tokens.scopes(for: "s3cret") == .read)
        #expect(tokens.scopes(for: "S3CRET") == nil, "a remembered token does not let in one like it")
    }

    @Test func moreTokensThanSlotsAllStillAuthorizeAsConfigured() throws {
        let count = VerifiedTokenCache.slotCount * 3
        let list = (0..<count).map { "token\($0)=\($0.isMultiple(of: 2) ? "read" : "dispatch")" }.joined(separator: ",")
        let tokens = try StaticTokens(environment: list)
        for _ in 0..<2 {
            for index in 0..<count {
                let scopes: ScopeSet = index.isMultiple(of: 2) ? .read : .dispatch
                #expect(tokens.scopes(for: "token\(index)") == scopes)
                // Just verified (or found), so remembered: the next lookup is the cache's.
                #expect(tokens.verified.remembers("token\(index)"))
                #expect(tokens.scopes(for: "token\(index)") == scopes)
            }
        }
        // Three tokens a slot: later tokens took the slots of earlier ones, verified again if asked.
        #expect((0..<count).contains { !tokens.verified.remembers("token\($0)") })
    }

    @Test func fingerprintsDifferBetweenCachesAndTokens() {
        let one = VerifiedTokenCache()
        let other = VerifiedTokenCache()
        #expect(one.fingerprint(of: "token") == one.fingerprint(of: "token"))
        #expect(one.fingerprint(of: "token") != one.fingerprint(of: "tokem"))
        #expect(one.fingerprint(of: "token") != other.fingerprint(of: "token"), "each cache has keys of its own")
    }
}
