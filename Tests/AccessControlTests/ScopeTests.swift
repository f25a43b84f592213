@testable import AccessControl
import Testing

/// ``ScopeSet`` parsing: strict for configuration, lenient for token claims.
@Suite struct ScopeTests {
    @Test func configurationFormNamesOneOrMoreScopesJoinedByPlus() throws {
        #expect(try ScopeSet(configuration: "read") == .read)
        #expect(try ScopeSet(configuration: "dispatch") == .dispatch)
        #expect(try ScopeSet(configuration: "read+dispatch") == [.read, .dispatch])
        #expect(try ScopeSet(configuration: " dispatch + read ") == [.read, .dispatch])
        #expect(ScopeSet.all.description == "read+dispatch+manage")
        #expect(ScopeSet.all.scopes == [.read, .dispatch, .manage])
    }

    @Test func unknownScopesInConfigurationAreAnErrorCountingThem() {
        #expect {
            try ScopeSet(configuration: "read+write+Admin")
        } throws: { error in
            guard let error = error as? AccessControlError else { return false }
            return error.code == .invalidScopes && error.message.hasPrefix("2 scope names that are not known (not shown")
                && error.message.contains("known scopes: read, dispatch")
        }
    }

    /// A token and its scope swapped (`dispatch=HunterTwoSecret`) put the token where a scope
    /// belongs: an unknown name is never shown, however much it looks like a scope name (one
    /// that looked like one, up to 16 letters, was shown before).
    @Test(arguments: ["s3cret-t0ken", "HunterTwoSecret", "write"])
    func anUnknownScopeIsNeverShown(name: String) {
        #expect {
            try ScopeSet(configuration: name)
        } throws: { error in
            guard let error = error as? AccessControlError else { return false }
            return error.code == .invalidScopes && !error.message.contains(name) && error.message.contains("not shown")
        }
    }

    @Test(arguments: ["", " ", "read+", "+read", "read++dispatch"])
    func emptyScopeNamesInConfigurationAreAnError(text: String) {
        #expect(throws: AccessControlError.self) { try ScopeSet(configuration: text) }
    }

    @Test func scopeNamesAreCaseSensitiveAsInOAuth() {
        #expect(throws: AccessControlError.self) { try ScopeSet(configuration: "Read") }
        #expect(ScopeSet(claim: "READ Dispatch") == [])
    }

    @Test func aClaimIsSpaceSeparatedAndIgnoresUnknownNames() {
        #expect(ScopeSet(claim: "read") == .read)
        #expect(ScopeSet(claim: "openid  dispatch profile read") == [.read, .dispatch])
        #expect(ScopeSet(claim: "admin write") == [])
        #expect(ScopeSet(claim: "") == [])
        #expect(ScopeSet(claim: "read+dispatch") == [], "a claim is not the configuration form")
    }

    @Test func aSetGrantsExactlyItsScopes() {
        #expect(ScopeSet.read.grants(.read))
        #expect(!ScopeSet.read.grants(.dispatch))
        #expect(ScopeSet.all.grants(.dispatch))
        #expect(ScopeSet([Scope.dispatch]) == .dispatch)
    }
}
