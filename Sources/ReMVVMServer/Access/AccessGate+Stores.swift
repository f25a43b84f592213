import AccessControl
import Journal
import MicroHTTP

extension AccessGate {
    /// What a request asks of a token besides authenticating: the scope its route needs and the
    /// store it reaches into, if any (docs/security.md, "Tokens limited to stores").
    ///
    /// - `GET`/`HEAD /stores` (the listing) and `PUT`/`DELETE /stores/{id}` need `manage`; every
    ///   other request the scope of its method (``scope(for:)``).
    /// - `/stores/{id}` and `/stores/{id}/…` reach the store `{id}`, when `{id}` is a store id (a
    ///   malformed one is left to the route, which answers `400`); the root routes of a store
    ///   (``defaultStoreSegments``) reach `default`. Segments are cut at the byte `/` of the
    ///   decoded path, as the router cuts them, so the id checked is the id the route serves.
    struct StoreNeeds {
        /// The scope the request needs.
        let scope: Scope
        /// The store the request reaches into, nil for a route of no store.
        let store: StoreID?
    }

    /// The first path segments of the root routes that serve the store `default` (its actions,
    /// state, view models, events, and the figures of `GET /stats`).
    static let defaultStoreSegments: Set<Substring> = ["actions", "state", "viewmodels", "events", "stats"]

    /// What `request` needs; the store is looked at only when `limited` (a token with a store
    /// list), so that a token without one pays nothing beyond the scope. `underStores`: whether
    /// the path starts with `/stores` (``GatedPath/isUnderStores``).
    static func needs(of request: Request, limited: Bool, underStores: Bool) -> StoreNeeds {
        let methodScope = scope(for: request.method)
        guard underStores else {
            guard limited else { return StoreNeeds(scope: methodScope, store: nil) }
            let first = request.path.dropFirst().prefix { $0 != "/" }
            return StoreNeeds(scope: methodScope, store: defaultStoreSegments.contains(first) ? .default : nil)
        }
        let rest = request.path.utf8.dropFirst("/stores".utf8.count)
        if rest.isEmpty {
            let lists = request.method == .GET || request.method == .HEAD
            return StoreNeeds(scope: lists ? .manage : methodScope, store: nil)
        }
        guard rest.first == UInt8(ascii: "/") else { return StoreNeeds(scope: methodScope, store: nil) }
        let afterSlash = rest.dropFirst()
        let segment = afterSlash.prefix { $0 != UInt8(ascii: "/") }
        let isManagement = segment.endIndex == afterSlash.endIndex
        let manages = isManagement && (request.method == .PUT || request.method == .DELETE)
        guard limited, let text = String(segment) else {
            return StoreNeeds(scope: manages ? .manage : methodScope, store: nil)
        }
        return StoreNeeds(scope: manages ? .manage : methodScope, store: try? StoreID(text))
    }

    /// The decision for a credential's `authorization` on `request`: `401` when it does not
    /// authenticate, `403` without the scope the route needs, ``Verdict/outOfReach(_:)`` for a
    /// store its list does not reach, else allowed.
    static func verdict(_ authorization: Result<Authorization, TokenRejection>, for request: Request, underStores: Bool) -> Verdict {
        switch authorization {
        case .failure(let rejection):
            return .decided(.unauthenticated(rejection))
        case .success(let granted):
            let needs = needs(of: request, limited: !granted.stores.isUnlimited, underStores: underStores)
            guard granted.may(needs.scope) else { return .decided(.forbidden(needs: needs.scope)) }
            if let store = needs.store, !granted.reaches(storeID: store.rawValue) { return .outOfReach(store) }
            return .decided(.allowed)
        }
    }

    /// What the gate decides for a request.
    enum Verdict: Equatable {
        /// Allowed, or refused with `401` or `403`.
        case decided(AccessDecision)
        /// A store the token does not reach: answered `404` exactly as a store that does not
        /// exist, so that the answer does not tell whether it does.
        case outOfReach(StoreID)
    }
}
