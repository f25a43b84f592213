@testable import AccessControl
import Testing

/// ``BearerToken``: the `Authorization: Bearer <token>` field and the `b64token` syntax.
@Suite struct AuthorizationHeaderTests {
    private func token(_ field: String) -> String? {
        guard case .success(let token) = BearerToken.parse(authorization: field) else { return nil }
        return String(token)
    }

    @Test func theSchemeIsCaseInsensitiveAndFollowedByOneToken() {
        #expect(token("Bearer abc") == "abc")
        #expect(token("bearer abc") == "abc")
        #expect(token("BEARER abc") == "abc")
        #expect(token("Bearer   abc") == "abc", "one or more spaces (RFC 7235 1*SP)")
        #expect(token("  Bearer abc \t") == "abc", "optional whitespace around the field value")
        #expect(token("Bearer a-b.c_d~e+f/g==") == "a-b.c_d~e+f/g==")
        #expect(token("Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig") == "eyJhbGciOiJIUzI1NiJ9.e30.sig")
    }

    @Test(arguments: [
        "", " ", "Bearer", "Bearer ", "Bearer  ", "Bearerabc", "Bearer\tabc",
        "Basic dXNlcjpwYXNz", "Token abc", "Bear abc", "Bearers abc", "Bearer abc def", "Bearer abc, def",
        "Bearer abc,def", "Bearer a=b", "Bearer =abc", "Bearer ab\"c", "Bearer ab;c", "Bearer ab\u{0}c",
        "Bearer tökén", "Bearer abc\r\nX-Injected: 1", "Bearer \u{1F600}", "Bearer realm=\"remvvm\"",
        "Bearer \(String(repeating: "a", count: 100))\u{1F600}", "\u{FEFF}Bearer abc",
    ])
    func anythingElseIsAMalformedCredentialNotACrash(field: String) {
        guard case .failure(let rejection) = BearerToken.parse(authorization: field) else {
            Issue.record("accepted \(field.debugDescription)")
            return
        }
        #expect(rejection.code == .malformedCredential)
    }

    @Test func b64tokenAllowsPaddingOnlyAtTheEnd() {
        #expect(BearerToken.isValid("abc"))
        #expect(BearerToken.isValid("abc=="))
        #expect(BearerToken.isValid("A-Z.a_z~0+9/"))
        #expect(!BearerToken.isValid(""))
        #expect(!BearerToken.isValid("="))
        #expect(!BearerToken.isValid("a=b"))
        #expect(!BearerToken.isValid("a b"))
        #expect(!BearerToken.isValid("a:b"))
        #expect(!BearerToken.isValid("é"))
    }
}
