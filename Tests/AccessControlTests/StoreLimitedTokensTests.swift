@testable import AccessControl
import Testing

/// Tokens limited to stores: the static-token configuration form (`TOKEN=SCOPES@STORES`), the JWT
/// claim `remvvm_stores`, the `manage` scope, and ``Authorization`` as the routes ask it.
@Suite struct StoreLimitedTokensTests {
    private func granted(_ authorizer: BearerAuthorizer, _ token: String) -> Authorization? {
        try? authorizer.authorization(credential: "Bearer \(token)").get()
    }

    @Test func aStaticTokenWithoutAListReachesEveryStoreAsBefore() throws {
        let tokens = try StaticTokens(environment: "s3cret=read+dispatch,look=read")
        let authorizer = BearerAuthorizer(staticTokens: tokens)
        let grant = try #require(granted(authorizer, "s3cret"))
        #expect(grant == Authorization(scopes: [.read, .dispatch], stores: .everyStore))
        #expect(grant.reaches(storeID: "default") && grant.reaches(storeID: "anything"))
        #expect(!grant.may(.manage))
        #expect(tokens.scopes(for: "look") == .read)
    }

    @Test func aStaticTokenListReachesItsStoresOnly() throws {
        let tokens = try StaticTokens(environment: "guest=read+dispatch@lobby+room-*, admin=read+dispatch+manage, none=read@")
        let authorizer = BearerAuthorizer(staticTokens: tokens)
        let guest = try #require(granted(authorizer, "guest"))
        #expect(guest.reaches(storeID: "lobby") && guest.reaches(storeID: "room-7"))
        #expect(!guest.reaches(storeID: "default") && !guest.reaches(storeID: "lobby2"))
        #expect(guest.may(.dispatch) && !guest.may(.manage))
        let admin = try #require(granted(authorizer, "admin"))
        #expect(admin.may(.manage) && admin.stores == .everyStore)
        let none = try #require(granted(authorizer, "none"))
        #expect(none.stores == .noStore && !none.reaches(storeID: "default"))
        // The match is picked by mask, not by position: every entry gets its own list.
        #expect(granted(authorizer, "nobody") == nil)
    }

    @Test func theTokenFileTakesTheSameListAndFileEntryWritesIt() throws {
        let line = try StaticTokens.fileEntry(token: "guest", scopes: .read, stores: try StoreReach(patterns: ["room-*", "lobby"]))
        #expect(line.hasSuffix("=read@lobby+room-*"))
        #expect(try StaticTokens.fileEntry(token: "guest", scopes: .read).hasSuffix("=read"))
        let tokens = try StaticTokens(hashFile: line + "\n")
        let grant = try #require(tokens.authorization(for: "guest"))
        #expect(grant.reaches(storeID: "room-1") && !grant.reaches(storeID: "default"))
    }

    @Test(arguments: ["t=read@-bad", "t=read@a++b", "t=read@a b", "t=read@room-*x*"])
    func aBadStoreInTheListStopsTheStartWithoutShowingIt(entry: String) {
        do {
            _ = try StaticTokens(environment: entry)
            Issue.record("accepted \(entry)")
        } catch {
            #expect(error.code == .invalidStores)
            #expect(error.message.hasPrefix("static token 1: store "), "\(error.message)")
            #expect(!error.message.contains("bad") && !error.message.contains("room"), "the pattern is not shown")
        }
    }

    @Test func theManageScopeIsConfiguredAndClaimedByName() throws {
        #expect(try ScopeSet(configuration: "manage") == .manage)
        #expect(ScopeSet(claim: "read manage") == [.read, .manage])
        #expect(ScopeSet.all.grants(.manage))
        #expect(Authorization.unrestricted.may(.manage))
        #expect(BearerAuthorizer().authorization(credential: nil) == .success(.unrestricted))
        #expect(BearerAuthorizer().authorization(token: "whatever") == .success(.unrestricted))
    }

    @Test func aJWTWithoutTheClaimReachesEveryStore() throws {
        let verified = try TestTokens.hs256Verifier().verify(TestTokens.hs256(TestTokens.claims()))
        #expect(verified.stores == .everyStore)
    }

    @Test func aJWTClaimListsExactIdsAndPrefixes() throws {
        let authorizer = BearerAuthorizer(jwt: try TestTokens.hs256Verifier())
        let token = TestTokens.hs256(TestTokens.claims(scope: "read manage", extra: #","remvvm_stores":["lobby","room-*","r\u006fom2"]"#))
        let grant = try #require(granted(authorizer, token))
        #expect(grant.reaches(storeID: "lobby") && grant.reaches(storeID: "room-3") && grant.reaches(storeID: "room2"))
        #expect(!grant.reaches(storeID: "default"))
        #expect(grant.may(.manage) && !grant.may(.dispatch))
        #expect(grant.validUntil == TestTokens.now + 3600 + 60)
        let empty = TestTokens.hs256(TestTokens.claims(extra: #","remvvm_stores":[]"#))
        #expect(try #require(granted(authorizer, empty)).stores == .noStore)
    }

    @Test(arguments: [#""lobby""#, "null", "1", "{}", #"["lobby",1]"#, #"[["lobby"]]"#, #"["-bad"]"#, #"[""]"#, "true"])
    func aJWTClaimThatIsNotAListOfStoresRejectsTheToken(value: String) throws {
        let token = TestTokens.hs256(TestTokens.claims(extra: #","remvvm_stores":\#(value)"#))
        let rejection = TestTokens.rejection(try TestTokens.hs256Verifier(), token)
        #expect(rejection?.code == .invalidClaims)
        #expect(rejection?.message.contains("remvvm_stores") == true)
    }

    @Test func aJWTThatRepeatsAnyNameIsRejected() throws {
        let verifier = try TestTokens.hs256Verifier()
        let twice = TestTokens.hs256(TestTokens.claims(extra: #","remvvm_stores":["a"],"remvvm_stores":["b"]"#))
        #expect(TestTokens.rejection(verifier, twice)?.code == .malformedToken)
        let unknownTwice = TestTokens.hs256(TestTokens.claims(extra: #","x":1,"x":2"#))
        #expect(TestTokens.rejection(verifier, unknownTwice) == JWTVerifier.repeatedMember)
    }
}
