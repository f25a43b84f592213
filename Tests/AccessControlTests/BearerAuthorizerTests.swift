@testable import AccessControl
import Testing

/// ``BearerAuthorizer``: decisions (allowed / 401 / 403) and their `WWW-Authenticate` challenges.
@Suite struct BearerAuthorizerTests {
    private func authorizer(jwt: Bool = true) throws -> BearerAuthorizer {
        BearerAuthorizer(
            staticTokens: try StaticTokens(environment: "s3cret=read+dispatch,look=read"),
            jwt: jwt ? try TestTokens.hs256Verifier() : nil
        )
    }

    @Test func withNothingConfiguredEverythingIsAllowed() {
        let open = BearerAuthorizer()
        #expect(!open.isEnabled)
        #expect(open.authorize(credential: nil, needs: .dispatch) == .allowed)
        #expect(open.authorize(credential: "Basic garbage", needs: .dispatch) == .allowed)
        #expect(open.authorize(token: nil, needs: .read) == .allowed)
        #expect("\(open)" == "BearerAuthorizer(disabled)")
    }

    @Test func eitherKindOfCredentialEnablesIt() throws {
        #expect(BearerAuthorizer(staticTokens: try StaticTokens(environment: "a=read")).isEnabled)
        #expect(BearerAuthorizer(jwt: try TestTokens.hs256Verifier()).isEnabled)
    }

    @Test func staticTokensAreAllowedOrForbiddenByScope() throws {
        let gate = try authorizer()
        #expect(gate.authorize(credential: "Bearer s3cret", needs: .dispatch) == .allowed)
        #expect(gate.authorize(credential: "Bearer look", needs: .read) == .allowed)
        let forbidden = gate.authorize(credential: "bearer look", needs: .dispatch)
        #expect(forbidden == .forbidden(needs: .dispatch))
        #expect(forbidden.status == 403)
        #expect(gate.challenge(for: forbidden) == #"Bearer realm="remvvm", error="insufficient_scope", scope="dispatch""#)
    }

    @Test func jwtsAreAllowedOrForbiddenByTheirScopeClaim() throws {
        let gate = try authorizer()
        let reader = TestTokens.hs256(TestTokens.claims(scope: "read"))
        #expect(gate.authorize(credential: "Bearer \(reader)", needs: .read) == .allowed)
        #expect(gate.authorize(credential: "Bearer \(reader)", needs: .dispatch) == .forbidden(needs: .dispatch))
        let nothing = TestTokens.hs256(TestTokens.claims(scope: "admin"))
        #expect(gate.authorize(credential: "Bearer \(nothing)", needs: .read) == .forbidden(needs: .read))
        #expect(gate.challenge(for: .forbidden(needs: .read)) == #"Bearer realm="remvvm", error="insufficient_scope", scope="read""#)
    }

    @Test func noCredentialIsA401ChallengeWithoutAnError() throws {
        let decision = try authorizer().authorize(credential: nil, needs: .read)
        #expect(decision.status == 401)
        guard case .unauthenticated(let rejection) = decision else { Issue.record("\(decision)"); return }
        #expect(rejection.code == .missing)
        #expect(try authorizer().challenge(for: decision) == #"Bearer realm="remvvm""#)
        #expect(try authorizer().authorize(token: nil, needs: .read) == decision)
    }

    @Test(arguments: [
        ("Bearer wrong", TokenRejection.Code.unknownToken),
        ("Bearer s3cre", .unknownToken),
        ("Bearer s3cret s3cret", .malformedCredential),
        ("Basic czNjcmV0Og==", .malformedCredential),
        ("Bearer", .malformedCredential),
        ("", .malformedCredential),
        ("Bearer a.b.c", .malformedToken),
        ("Bearer e30.e30.", .unsupportedAlgorithm),
    ])
    func aBadCredentialIsA401WithInvalidToken(credential: String, code: TokenRejection.Code) throws {
        let gate = try authorizer()
        let decision = gate.authorize(credential: credential, needs: .read)
        guard case .unauthenticated(let rejection) = decision else { Issue.record("\(decision)"); return }
        #expect(rejection.code == code)
        #expect(decision.status == 401)
        #expect(gate.challenge(for: decision) == #"Bearer realm="remvvm", error="invalid_token", error_description="\#(rejection.message)""#)
    }

    @Test func expiredAndNotYetValidJWTsAreInvalidTokens() throws {
        let gate = try authorizer()
        let now = Int(TestTokens.now)
        for (payload, code) in [
            (#"{"exp":\#(now - 3600),"scope":"read"}"#, TokenRejection.Code.expired),
            (#"{"exp":\#(now + 3600),"nbf":\#(now + 600),"scope":"read"}"#, .notYetValid),
        ] {
            let decision = gate.authorize(credential: "Bearer \(TestTokens.hs256(payload))", needs: .read)
            #expect(decision == .unauthenticated(TokenRejection(code, code == .expired ? "the JWT has expired" : "the JWT is not valid yet (nbf)")))
            #expect(gate.challenge(for: decision)?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test func withoutAJWTVerifierADottedTokenIsUnknown() throws {
        let gate = try authorizer(jwt: false)
        let decision = gate.authorize(credential: "Bearer \(TestTokens.hs256(TestTokens.claims()))", needs: .read)
        guard case .unauthenticated(let rejection) = decision else { Issue.record("\(decision)"); return }
        #expect(rejection.code == .unknownToken)
    }

    @Test func aBareTokenFromACookieOrQueryIsCheckedTheSameWay() throws {
        let gate = try authorizer()
        #expect(gate.authorize(token: "s3cret", needs: .dispatch) == .allowed)
        #expect(gate.authorize(token: "look", needs: .dispatch) == .forbidden(needs: .dispatch))
        #expect(gate.authorize(token: TestTokens.hs256(TestTokens.claims()), needs: .dispatch) == .allowed)
        for bad in ["", "Bearer s3cret", "s3cret;x", "s3cret\r\n"] {
            guard case .unauthenticated(let rejection) = gate.authorize(token: bad, needs: .read) else {
                Issue.record("accepted \(bad.debugDescription)"); continue
            }
            #expect(rejection.code == .malformedCredential)
        }
        guard case .unauthenticated(let rejection) = gate.authorize(token: "wrong", needs: .read) else { Issue.record("accepted"); return }
        #expect(rejection.code == .unknownToken)
    }

    @Test func anOversizedCredentialIsRefusedBeforeItIsHashed() throws {
        let gate = try authorizer()
        let huge = String(repeating: "a", count: 100_000)
        guard case .unauthenticated(let rejection) = gate.authorize(credential: "Bearer \(huge)", needs: .read) else {
            Issue.record("accepted"); return
        }
        #expect(rejection.code == .tooLong)
    }

    @Test func theRealmIsConfigurableAndQuotedSafely() {
        let gate = BearerAuthorizer(staticTokens: .none, jwt: nil, realm: "my \"realm\"\\")
        #expect(gate.challenge(for: .forbidden(needs: .read)) == #"Bearer realm="my realm", error="insufficient_scope", scope="read""#)
        #expect(gate.challenge(for: .allowed) == nil)
        #expect(AccessDecision.allowed.status == nil)
    }
}
