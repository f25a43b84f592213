/// What one request's credential grants: its scopes and the stores it reaches. What the routes
/// of many stores ask before they serve: ``reaches(storeID:)`` for a store's routes (a store out
/// of reach answers `404`, as if it did not exist) and ``may(_:)`` for a scope, e.g.
/// `may(.manage)` for creating, deleting and listing stores.
///
/// Made by ``BearerAuthorizer/authorization(credential:)`` and
/// ``BearerAuthorizer/authorization(token:)``; with no tokens configured it is
/// ``unrestricted``.
public struct Authorization: Sendable, Equatable {
    /// The scopes the credential grants.
    public let scopes: ScopeSet
    /// The stores the credential reaches.
    public let stores: StoreReach
    /// Until when the credential authenticates, in seconds since 1970 (a JWT's `exp` plus the
    /// leeway it is verified with); nil for a static token or when nothing is configured.
    public let validUntil: Double?

    /// A credential's grant.
    public init(scopes: ScopeSet, stores: StoreReach = .everyStore, validUntil: Double? = nil) {
        self.scopes = scopes
        self.stores = stores
        self.validUntil = validUntil
    }

    /// Everything: the grant of every request when no token is configured.
    public static let unrestricted = Authorization(scopes: .all)

    /// Whether the credential grants `scope`.
    public func may(_ scope: Scope) -> Bool {
        scopes.grants(scope)
    }

    /// Whether the store `storeID` is within the credential's reach: always without a store
    /// list; otherwise when the id is one of the list's exact ids or starts with one of its
    /// prefixes. No allocation for a credential without a list.
    public func reaches(storeID: String) -> Bool {
        stores.reaches(storeID: storeID)
    }
}
