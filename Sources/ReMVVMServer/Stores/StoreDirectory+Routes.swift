import Foundation
import Journal
import MicroHTTP

/// The management routes of `docs/http-api.md`, "Stores": `PUT`, `GET`, `DELETE /stores/{id}` and
/// `GET /stores`. Access (a token's reach, the `manage` scope) is checked before they run; the
/// listing takes the reach as `isVisible`.
extension StoreDirectory {
    /// The listing's page size when `limit` is not given, and the sizes allowed.
    static var defaultListLimit: Int { 100 }
    static var listLimits: ClosedRange<Int> { 1...1_000 }

    /// The store id of a path segment, or the `400` naming the rule it breaks.
    static func storeID(_ text: String) -> Result<StoreID, Problem> {
        do {
            return .success(try StoreID(text))
        } catch {
            return .failure(.invalidStoreID(text, error))
        }
    }

    /// `PUT /stores/{id}`: `201` with the new store's description and its `Location`, `200` with
    /// the existing one's; with `If-None-Match: *`, `412` when it exists; `507` past `maxStores`.
    func respondToPut(_ request: Request, id text: String) -> Response {
        respond(toStore: text) { id throws(StoreDirectoryError) in
            switch try create(id) {
            case .created(let description):
                return JSONCoding.response(
                    StoreListingJSON.object(description, loaded: isLoaded(id)), status: 201,
                    headers: [("Location", "/stores/\(id)")]
                )
            case .existed(let description):
                if Self.requiresAbsence(request) { return Problem.storeExists(id).response }
                return JSONCoding.response(StoreListingJSON.object(description, loaded: isLoaded(id)))
            case .limitReached:
                return Problem.store(.limitReached(limit: limits.maxStores)).response
            }
        }
    }

    /// `GET /stores/{id}`: `200` with its description, `404` when absent.
    func respondToGet(id text: String) -> Response {
        respond(toStore: text) { id throws(StoreDirectoryError) in
            guard let listing = try describe(id) else { return Problem.storeNotFound(id).response }
            return JSONCoding.response(StoreListingJSON.object(listing.description, loaded: listing.loaded))
        }
    }

    /// `DELETE /stores/{id}`: `204`; `404` when absent; `405` for `default`.
    func respondToDelete(id text: String) -> Response {
        respond(toStore: text) { id throws(StoreDirectoryError) in
            guard try delete(id) else { return Problem.storeNotFound(id).response }
            return Response(status: 204, headers: [:], body: .bytes([]))
        }
    }

    /// `body`'s answer for the store named `text`: the `400` of ``storeID(_:)`` when `text` is no
    /// store id, and the problem of a ``StoreDirectoryError`` that `body` throws.
    private func respond(toStore text: String, _ body: (StoreID) throws(StoreDirectoryError) -> Response) -> Response {
        switch Self.storeID(text) {
        case .failure(let problem):
            return problem.response
        case .success(let id):
            do {
                return try body(id)
            } catch {
                return Problem.store(error).response
            }
        }
    }

    /// `GET /stores?prefix=&after=&limit=`: a page of stores ordered by id, those `isVisible`
    /// refuses left out; `400` for a `limit` outside 1–1000 or an `after` that is no store id.
    func respondToList(_ request: Request, isVisible: (StoreID) -> Bool = { _ in true }) -> Response {
        var limit = Self.defaultListLimit
        if let text = request.query["limit"] {
            guard let value = Int(text), Self.listLimits.contains(value) else {
                return Problem.badStoreListing(
                    "limit must be a whole number from \(Self.listLimits.lowerBound) to \(Self.listLimits.upperBound), not \"\(text)\"",
                    field: "limit"
                ).response
            }
            limit = value
        }
        var after: StoreID?
        if let text = request.query["after"] {
            switch Self.storeID(text) {
            case .success(let id): after = id
            case .failure(var problem):
                problem.detail = "after: " + problem.detail
                problem.field = "after"
                return problem.response
            }
        }
        do {
            let page = try list(prefix: request.query["prefix"] ?? "", after: after, limit: limit, isVisible: isVisible)
            return JSONCoding.response(StoreListingJSON.page(page.stores.map { ($0.description, $0.loaded) }, next: page.next))
        } catch {
            return Problem.store(error).response
        }
    }

    /// Whether the request asks to create only (`If-None-Match: *`).
    private static func requiresAbsence(_ request: Request) -> Bool {
        guard let condition = request.headers.list(.ifNoneMatch) else { return false }
        return condition.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" }
    }
}
