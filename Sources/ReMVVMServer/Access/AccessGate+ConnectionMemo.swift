import AccessControl
import MicroHTTP

/// An `Authorization` field verified on a connection's earlier request, kept in the connection's
/// ``MicroHTTP/ConnectionMemo``: the next request that carries the same field on that connection
/// is not parsed, hashed or verified again (docs/security.md, "Tokens on a kept-alive connection").
final class VerifiedCredential: Sendable {
    /// The gate that verified it (another service's gate never takes its word).
    let gate: ObjectIdentifier
    /// The field's value, as sent.
    let field: String
    /// What it grants.
    let authorization: Authorization

    init(gate: ObjectIdentifier, field: String, authorization: Authorization) {
        self.gate = gate
        self.field = field
        self.authorization = authorization
    }
}

extension ConnectionMemo {
    /// The credential remembered on the connection, if what is remembered is one.
    var verifiedCredential: VerifiedCredential? {
        guard let object = remembered(), ObjectIdentifier(type(of: object)) == ObjectIdentifier(VerifiedCredential.self) else {
            return nil
        }
        return unsafeDowncast(object, to: VerifiedCredential.self)
    }
}

extension AccessGate {
    /// What the `Authorization` field `header` grants: from the connection's memo when its
    /// previous request carried the same field and what it granted still holds (a JWT until it
    /// expires), else verified now and, when it authenticates, remembered on the connection.
    func authorization(credential header: String?, on memo: ConnectionMemo?) -> Result<Authorization, TokenRejection> {
        guard let header, let memo else { return authorizer.authorization(credential: header) }
        let gate = ObjectIdentifier(identity)
        if let remembered = memo.verifiedCredential, remembered.gate == gate, remembered.field == header,
           authorizer.stillHolds(remembered.authorization) {
            return .success(remembered.authorization)
        }
        let verified = authorizer.authorization(credential: header)
        if case .success(let granted) = verified {
            memo.remember(VerifiedCredential(gate: gate, field: header, authorization: granted))
        }
        return verified
    }
}
