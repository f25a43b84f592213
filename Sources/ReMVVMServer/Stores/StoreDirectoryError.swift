public import Journal

/// Why a ``StoreDirectory`` cannot give or change a store; each case is one answer of
/// `docs/http-api.md`, "Stores" (its problem detail: `problem`).
public enum StoreDirectoryError: Error, Sendable, Equatable {
    /// The text is not a store id (`400`, naming the rule).
    case invalidID(String, StoreIDError)
    /// No such store; a read never creates one (`404`).
    case notFound(StoreID)
    /// Creating it would pass `maxStores` (`507`).
    case limitReached(limit: Int)
    /// The store could not be loaded, or the catalog could not be read or written (`503`: retry).
    case unavailable(StoreID, reason: String)
    /// The store cannot be loaded on this server until someone acts (`503` without
    /// `Retry-After`): a replica that never registered the store finds its first records removed
    /// by retention; another replica that has it loaded serves it.
    case unloadable(StoreID, reason: String)
    /// The shared log's connection broke while the store's creation or deletion was committing,
    /// and reading the store back did not tell whether it took effect (`503`
    /// `outcome-unknown`: retry; `PUT` and `DELETE` are safe to repeat).
    case outcomeUnknown(StoreID, reason: String)
    /// `default` always exists (`405` for `DELETE /stores/default`).
    case defaultCannotBeDeleted
}
