/// What a JWT that passed every check grants.
public struct VerifiedToken: Sendable, Equatable {
    /// The known scopes of its `scope` / `scp` claims; unknown names are dropped.
    public let scopes: ScopeSet
    /// Its `exp` claim: seconds since 1970-01-01T00:00:00Z.
    public let expiresAt: Double
    /// The stores of its `remvvm_stores` claim; every store without the claim.
    public let stores: StoreReach

    /// A verified token's grant; made by ``JWTVerifier`` (public for tests of code that uses it).
    public init(scopes: ScopeSet, expiresAt: Double, stores: StoreReach = .everyStore) {
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.stores = stores
    }
}
