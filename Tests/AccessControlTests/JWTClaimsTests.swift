@testable import AccessControl
import Testing

/// The payload: `exp` (required), `nbf`, leeway edges, `iss`, `aud`, `scope` / `scp`.
@Suite struct JWTClaimsTests {
    private let now = Int(TestTokens.now)

    private func verify(_ payload: String, leeway: Duration = .seconds(60), issuer: String? = nil, audience: String? = nil) throws -> Result<VerifiedToken, TokenRejection> {
        let verifier = try TestTokens.hs256Verifier(issuer: issuer, audience: audience, leeway: leeway)
        do {
            return .success(try verifier.verify(TestTokens.hs256(payload)))
        } catch {
            return .failure(error)
        }
    }

    private func code(_ payload: String, leeway: Duration = .seconds(60), issuer: String? = nil, audience: String? = nil) throws -> TokenRejection.Code? {
        guard case .failure(let rejection) = try verify(payload, leeway: leeway, issuer: issuer, audience: audience) else { return nil }
        return rejection.code
    }

    @Test func expIsRequired() throws {
        #expect(try code(#"{"scope":"read"}"#) == .invalidClaims)
        #expect(try code(#"{"scope":"read","exp":null}"#) == .invalidClaims)
    }

    @Test(arguments: [#""1800003600""#, "true", "[1]", "{}", "1e400", "-1e400"])
    func expAndNbfMustBeFiniteNumbers(value: String) throws {
        #expect(try code(#"{"exp":\#(value)}"#) == .invalidClaims)
        #expect(try code(#"{"exp":\#(now + 100),"nbf":\#(value)}"#) == .invalidClaims)
    }

    @Test func anExpiredTokenIsRefusedAtTheEdgeOfTheLeeway() throws {
        // Valid while now < exp + leeway.
        #expect(try code(#"{"exp":\#(now - 59)}"#) == nil)
        #expect(try code(#"{"exp":\#(now - 60)}"#) == .expired)
        #expect(try code(#"{"exp":\#(now - 3600)}"#) == .expired)
        #expect(try code(#"{"exp":\#(TestTokens.now - 59.5)}"#) == nil, "fractional NumericDate")
        #expect(try code(#"{"exp":\#(now + 1)}"#, leeway: .zero) == nil)
        #expect(try code(#"{"exp":\#(now)}"#, leeway: .zero) == .expired)
        #expect(try code(#"{"exp":\#(now - 299)}"#, leeway: .seconds(300)) == nil)
    }

    @Test func aNotYetValidTokenIsRefusedAtTheEdgeOfTheLeeway() throws {
        let exp = now + 3600
        // Valid once now >= nbf - leeway.
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(now + 60)}"#) == nil)
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(now + 61)}"#) == .notYetValid)
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(TestTokens.now + 60.5)}"#) == .notYetValid)
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(now)}"#, leeway: .zero) == nil)
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(now + 1)}"#, leeway: .zero) == .notYetValid)
        #expect(try code(#"{"exp":\#(exp),"nbf":\#(now - 10_000)}"#) == nil)
    }

    @Test func aRepeatedClaimIsRefused() throws {
        #expect(try code(#"{"exp":\#(now - 3600),"exp":\#(now + 3600)}"#) == .malformedToken)
        #expect(try code(#"{"exp":\#(now + 3600),"scope":"read","scope":"dispatch"}"#) == .malformedToken)
    }

    @Test func theIssuerIsCheckedOnlyWhenConfigured() throws {
        let exp = now + 3600
        #expect(try code(#"{"exp":\#(exp),"iss":"https://other"}"#) == nil)
        #expect(try code(#"{"exp":\#(exp),"iss":"https://id.example"}"#, issuer: "https://id.example") == nil)
        #expect(try code(#"{"exp":\#(exp),"iss":"https:\/\/id.example"}"#, issuer: "https://id.example") == nil)
        #expect(try code(#"{"exp":\#(exp),"iss":"https://other"}"#, issuer: "https://id.example") == .wrongIssuer)
        #expect(try code(#"{"exp":\#(exp)}"#, issuer: "https://id.example") == .wrongIssuer)
        #expect(try code(#"{"exp":\#(exp),"iss":1}"#) == .invalidClaims)
    }

    @Test func theAudienceIsAStringOrAnArrayNamingTheConfiguredOne() throws {
        let exp = now + 3600
        #expect(try code(#"{"exp":\#(exp),"aud":"remvvm"}"#, audience: "remvvm") == nil)
        #expect(try code(#"{"exp":\#(exp),"aud":["other","remvvm"]}"#, audience: "remvvm") == nil)
        #expect(try code(#"{"exp":\#(exp),"aud":["other"]}"#, audience: "remvvm") == .wrongAudience)
        #expect(try code(#"{"exp":\#(exp),"aud":"remvvm-2"}"#, audience: "remvvm") == .wrongAudience)
        #expect(try code(#"{"exp":\#(exp)}"#, audience: "remvvm") == .wrongAudience)
        #expect(try code(#"{"exp":\#(exp),"aud":["remvvm",1]}"#, audience: "remvvm") == .invalidClaims)
        #expect(try code(#"{"exp":\#(exp),"aud":"anyone"}"#) == nil)
    }

    @Test func scopesComeFromScopeAndScpAndUnknownOnesGrantNothing() throws {
        let exp = now + 3600
        func scopes(_ claims: String) throws -> ScopeSet? {
            guard case .success(let token) = try verify(#"{"exp":\#(exp)\#(claims)}"#) else { return nil }
            return token.scopes
        }
        #expect(try scopes(#","scope":"read""#) == .read)
        #expect(try scopes(#","scope":"openid admin dispatch""#) == .dispatch)
        #expect(try scopes(#","scope":"admin write""#) == [])
        #expect(try scopes(#","scope":["read","dispatch"]"#) == [.read, .dispatch])
        #expect(try scopes(#","scp":["dispatch","admin"]"#) == .dispatch)
        #expect(try scopes(#","scp":"read""#) == .read)
        #expect(try scopes(#","scope":"read","scp":["dispatch"]"#) == [.read, .dispatch])
        #expect(try scopes(#","scope":"\u0072ead""#) == .read)
        #expect(try scopes("") == [], "no scope claim: a valid token that grants nothing (403, not 401)")
        #expect(try code(#"{"exp":\#(exp),"scope":7}"#) == .invalidClaims)
        #expect(try code(#"{"exp":\#(exp),"scp":["read",null]}"#) == .invalidClaims)
    }

    @Test func theClockIsTheInjectedOne() throws {
        let key = try JWTKey.hs256(secret: TestTokens.secret)
        let token = TestTokens.hs256(#"{"exp":1000}"#)
        #expect(TestTokens.rejection(try JWTVerifier(keys: [key], clock: { 1059 }), token) == nil)
        #expect(TestTokens.rejection(try JWTVerifier(keys: [key], clock: { 1060 }), token)?.code == .expired)
        #expect(TestTokens.rejection(try JWTVerifier(keys: [key]), token)?.code == .expired, "the system clock is past 1970")
    }
}
