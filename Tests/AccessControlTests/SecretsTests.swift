@testable import AccessControl
import Crypto
import Testing
import _CryptoExtras

/// Tokens, secrets and keys never appear in errors, rejections, challenges, descriptions or dumps.
@Suite struct SecretsTests {
    private let secretToken = "Zq9-SECRET-token~value"

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    private func configurationError(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch {
            let message = (error as? AccessControlError)?.message ?? "not an AccessControlError"
            return "\(error) \(message) \(String(reflecting: error)) \(dumped(error))"
        }
    }

    @Test func configurationErrorsNeverContainTheToken() {
        let secret = secretToken
        let cases: [() throws -> Void] = [
            { _ = try StaticTokens(environment: "\(secret)=admin") },
            { _ = try StaticTokens(environment: "\(secret)=read,\(secret)=dispatch") },
            { _ = try StaticTokens(environment: "\(secret)") },
            { _ = try StaticTokens(environment: "\(secret) x=read") },
            { _ = try StaticTokens(environment: "read=\(secret)") },
            { _ = try StaticTokens(environment: "read=\(secret)+dispatch") },
            { _ = try StaticTokens(hashFile: "\(secret)=read") },
            { _ = try StaticTokens(hashFile: "sha256:\(secret)=read") },
            { _ = try StaticTokens.fileEntry(token: "\(secret) ", scopes: .read) },
        ]
        for (index, body) in cases.enumerated() {
            let text = configurationError(body)
            #expect(text != "accepted", "case \(index)")
            #expect(!text.contains("SECRET"), "case \(index): \(text)")
        }
    }

    @Test func keyErrorsNeverContainTheSecretOrTheKey() {
        let shortSecret = "SECRET-but-short"
        let pemBody = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAESECRET"
        let pem = "-----BEGIN PUBLIC KEY-----\n\(pemBody)\n-----END PUBLIC KEY-----"
        for body: () throws -> Void in [
            { _ = try JWTKey.hs256(secret: shortSecret) },
            { _ = try JWTKey.es256(publicKeyPEM: pem) },
            { _ = try JWTKey.rs256(publicKeyPEM: pem) },
            { _ = try JWTKey.publicKey(pem: pem) },
        ] {
            let text = configurationError(body)
            #expect(text != "accepted")
            #expect(!text.contains("SECRET") && !text.contains(pemBody), "\(text)")
        }
    }

    @Test func descriptionsAndDumpsNeverContainSecretsOrKeys() throws {
        let key = try JWTKey.hs256(secret: TestTokens.secret)
        let verifier = try JWTVerifier(keys: [key], issuer: "https://id.example")
        let tokens = try StaticTokens(environment: "\(secretToken)=read")
        let gate = BearerAuthorizer(staticTokens: tokens, jwt: verifier)
        let rendered = [
            "\(key)", String(reflecting: key), dumped(key),
            "\(verifier)", String(reflecting: verifier), dumped(verifier),
            "\(tokens)", String(reflecting: tokens), dumped(tokens),
            "\(gate)", String(reflecting: gate), dumped(gate),
        ]
        for text in rendered {
            #expect(!text.contains(TestTokens.secret) && !text.contains("hs256-test-secret"), "\(text)")
            #expect(!text.contains("SECRET"), "\(text)")
        }
        #expect("\(key)" == "JWTKey(HS256)")
        #expect("\(tokens)" == "StaticTokens(1)")
        #expect(!dumped(tokens).contains("words"), "no digests in a dump")
        #expect("\(gate)".contains("1 static tokens"))
        let publicKey = try JWTKey.es256(publicKeyPEM: TestTokens.p256.publicKey.pemRepresentation)
        #expect(!dumped(publicKey).contains("BEGIN"))
    }

    @Test func rejectionsAndChallengesNeverContainTheToken() throws {
        let gate = BearerAuthorizer(
            staticTokens: try StaticTokens(environment: "look=read"),
            jwt: try TestTokens.hs256Verifier(issuer: "https://id.example", audience: "remvvm")
        )
        let marker = "SECRET"
        let hostile = [
            "Bearer \(secretToken)",
            "Basic \(secretToken)",
            "Bearer \(secretToken) \(secretToken)",
            "Bearer \(secretToken)\"",
            "Bearer " + TestTokens.hs256(#"{"exp":1,"scope":"read","note":"\#(marker)"}"#),
            "Bearer " + TestTokens.hs256(#"{"exp":\#(Int(TestTokens.now) + 60),"iss":"\#(marker)"}"#),
            "Bearer " + TestTokens.hs256(#"{"exp":\#(Int(TestTokens.now) + 60),"iss":"https://id.example","aud":"\#(marker)"}"#),
            "Bearer " + TestTokens.hs256(TestTokens.claims(), header: #"{"alg":"\#(marker)"}"#),
            "Bearer " + TestTokens.hs256(TestTokens.claims(), secret: "\(marker)-wrong-secret-long-enough-for-hs"),
            "Bearer " + TestTokens.signingInput(header: #"{"alg":"none","x":"\#(marker)"}"#, payload: "{}") + ".",
            "Bearer \(Base64URL.encode(Array(marker.utf8))).e30.AAAA",
        ]
        for credential in hostile {
            let decision = gate.authorize(credential: credential, needs: .dispatch)
            guard case .unauthenticated(let rejection) = decision else { Issue.record("\(decision)"); continue }
            let texts = [rejection.message, "\(rejection)", String(reflecting: rejection), dumped(decision), gate.challenge(for: decision) ?? ""]
            for text in texts {
                #expect(!text.contains(marker), "\(text)")
                #expect(!text.contains(secretToken))
            }
        }
    }
}
