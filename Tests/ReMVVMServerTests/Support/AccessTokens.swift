import AccessControl
import Crypto
import Foundation

/// The credentials of the access-control tests: static tokens with each scope, JWTs signed with a
/// test HS256 secret, and the authorizer that knows them.
enum AccessTokens {
    /// A static token granting `read`.
    static let reader = "reader-7Qm2x"
    /// A static token granting `dispatch` only.
    static let dispatcher = "dispatcher-Kp41z"
    /// A static token granting both.
    static let admin = "admin-Zr8v0w"
    /// A token that is configured nowhere.
    static let unknown = "nobody-Xx00000"
    /// The HS256 secret (more than 32 bytes).
    static let secret = "remvvm-test-secret-0123456789abcdef0123"

    /// The static tokens in the environment form.
    static let environment = "\(reader)=read,\(dispatcher)=dispatch,\(admin)=read+dispatch"

    /// The static tokens of `staticTokens` (the environment form; ``environment`` unless given)
    /// and HS256 JWTs, with the system clock.
    static func authorizer(staticTokens: String = environment) throws -> BearerAuthorizer {
        BearerAuthorizer(
            staticTokens: try StaticTokens(environment: staticTokens),
            jwt: try JWTVerifier(keys: [try JWTKey.hs256(secret: secret)])
        )
    }

    /// An HS256 JWT with `scope`, expiring `expiresIn` from now (negative: already expired), with
    /// the claim `remvvm_stores` when `stores` is given.
    static func jwt(scope: String, expiresIn: TimeInterval = 3_600, secret: String = secret, stores: [String]? = nil) -> String {
        let exp = Int(Date().timeIntervalSince1970 + expiresIn)
        let storesClaim = stores.map { #","remvvm_stores":["# + $0.map { "\"\($0)\"" }.joined(separator: ",") + "]" } ?? ""
        let input = base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
            + base64URL(Array(#"{"sub":"tester","exp":\#(exp),"scope":"\#(scope)"\#(storesClaim)}"#.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return input + "." + base64URL(Array(mac))
    }

    /// A JWT that expired an hour ago (well past the one-minute leeway).
    static var expiredJWT: String { jwt(scope: "read dispatch", expiresIn: -3_600) }

    /// Unpadded base64url (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
