import AccessControl
import Foundation
import HTTPTestSupport
import MicroHTTP
import Synchronization
import Testing
@testable import ReMVVMServer

/// A credential verified on a kept-alive connection is remembered there (`ConnectionMemo`):
/// the same field on the next request is not verified again, anything else is, and what is
/// remembered never outlives what it grants.
@Suite struct AccessConnectionMemoTests {
    private func request(_ method: HTTPMethod = .GET, authorization: String?, memo: ConnectionMemo) -> Request {
        Request(
            method: method,
            path: method == .GET ? "/state" : "/actions",
            headers: HTTPHeaders(authorization.map { [("Authorization", $0)] } ?? []),
            connectionMemo: memo
        )
    }

    @Test func aMemoHandsBackTheCredentialOnlyWhenItHoldsOne() {
        final class Other: Sendable {}
        let memo = ConnectionMemo()
        #expect(memo.verifiedCredential == nil)
        let credential = VerifiedCredential(gate: ObjectIdentifier(memo), field: "Bearer x", authorization: Authorization(scopes: .all))
        memo.remember(credential)
        #expect(memo.verifiedCredential === credential)
        memo.remember(Other())
        #expect(memo.verifiedCredential == nil)
        #expect(memo.remembered() is Other)
        memo.remember(nil)
        #expect(memo.remembered() == nil)
    }

    @Test func aVerifiedTokenIsRememberedAndAnotherFieldIsVerifiedAgain() throws {
        let gate = AccessGate(authorizer: try AccessTokens.authorizer())
        let memo = ConnectionMemo()
        #expect(gate.verdict(for: request(authorization: "Bearer \(AccessTokens.reader)", memo: memo)) == .decided(.allowed))
        #expect(memo.verifiedCredential?.field == "Bearer \(AccessTokens.reader)")
        // The same connection, another token: its own verdict, never the remembered one.
        #expect(gate.verdict(for: request(.POST, authorization: "Bearer \(AccessTokens.reader)", memo: memo)) == .decided(.forbidden(needs: .dispatch)))
        guard case .decided(.unauthenticated) = gate.verdict(for: request(authorization: "Bearer \(AccessTokens.unknown)", memo: memo)) else {
            Issue.record("an unknown token on a connection that carried a good one must be refused")
            return
        }
        guard case .decided(.unauthenticated) = gate.verdict(for: request(authorization: nil, memo: memo)) else {
            Issue.record("a request without a token on that connection must be refused")
            return
        }
        #expect(gate.verdict(for: request(.POST, authorization: "Bearer \(AccessTokens.dispatcher)", memo: memo)) == .decided(.allowed))
        #expect(memo.verifiedCredential?.field == "Bearer \(AccessTokens.dispatcher)")
    }

    @Test func anotherGatesMemoIsNotTrusted() throws {
        let first = AccessGate(authorizer: try AccessTokens.authorizer())
        let second = AccessGate(authorizer: try AccessTokens.authorizer(staticTokens: "other-token-1=read"))
        let memo = ConnectionMemo()
        #expect(first.verdict(for: request(authorization: "Bearer \(AccessTokens.reader)", memo: memo)) == .decided(.allowed))
        guard case .decided(.unauthenticated) = second.verdict(for: request(authorization: "Bearer \(AccessTokens.reader)", memo: memo)) else {
            Issue.record("a token the second gate does not know must be refused there")
            return
        }
    }

    /// A JWT remembered on the connection stops counting when it expires (plus the leeway), by
    /// the verifier's clock.
    @Test func aRememberedJWTExpiresOnTime() throws {
        let now = Atomic<Int>(Int(Date().timeIntervalSince1970))
        let authorizer = BearerAuthorizer(
            jwt: try JWTVerifier(keys: [try JWTKey.hs256(secret: AccessTokens.secret)], clock: { Double(now.load(ordering: .relaxed)) })
        )
        let gate = AccessGate(authorizer: authorizer)
        let memo = ConnectionMemo()
        let token = "Bearer " + AccessTokens.jwt(scope: "read", expiresIn: 10)
        #expect(gate.verdict(for: request(authorization: token, memo: memo)) == .decided(.allowed))
        #expect(memo.verifiedCredential != nil)
        now.add(60 + 5, ordering: .relaxed)  // past exp, inside the one-minute leeway
        #expect(gate.verdict(for: request(authorization: token, memo: memo)) == .decided(.allowed))
        now.add(10, ordering: .relaxed)  // past exp plus the leeway
        guard case .decided(.unauthenticated) = gate.verdict(for: request(authorization: token, memo: memo)) else {
            Issue.record("an expired JWT must be refused on the connection it was remembered on")
            return
        }
    }

    /// Over a real kept-alive connection: one connection, the token changed between requests.
    @Test func aKeptAliveConnectionGetsEachRequestsOwnVerdict() throws {
        let live = try LiveServer(transport: .live, accessControl: try AccessTokens.authorizer())
        let client = live.client()
        for _ in 0..<3 {
            #expect(try client.send(path: "/state", headers: [("Authorization", "Bearer \(AccessTokens.reader)")]).status == 200)
        }
        let body = Array(#"{"type":"increase"}"#.utf8)
        let json = [("Content-Type", "application/json")]
        #expect(try client.send(method: "POST", path: "/actions", headers: json + [("Authorization", "Bearer \(AccessTokens.reader)")], body: body).status == 403)
        #expect(try client.send(method: "POST", path: "/actions", headers: json + [("Authorization", "Bearer \(AccessTokens.unknown)")], body: body).status == 401)
        #expect(try client.send(method: "POST", path: "/actions", headers: json, body: body).status == 401)
        #expect(try client.send(method: "POST", path: "/actions", headers: json + [("Authorization", "Bearer \(AccessTokens.admin)")], body: body).status == 200)
        #expect(client.connectionsOpened == 1)
    }
}
