import Journal

extension Problem {
    /// The answer to a ``StoreDirectoryError``.
    static func store(_ error: StoreDirectoryError) -> Problem {
        switch error {
        case .invalidID(let text, let rule):
            return invalidStoreID(text, rule)
        case .notFound(let id):
            return storeNotFound(id)
        case .limitReached(let limit):
            return Problem(
                type: type("store-limit-reached"),
                title: "Insufficient Storage",
                status: 507,
                detail: "this server holds its limit of \(limit) stores (maxStores); delete a store or raise the limit; nothing was created"
            )
        case .unavailable(let id, let reason):
            return serviceUnavailable(
                "store-unavailable",
                detail: "the store \(id) cannot be served right now (\(reason)); nothing was dispatched, retry later"
            )
        case .unloadable(let id, let reason):
            return serviceUnavailable(
                "store-unavailable",
                detail: "this server cannot load the store \(id), and retrying here will not change that (\(reason)); nothing was dispatched: another replica that has it loaded serves it",
                passes: false
            )
        case .outcomeUnknown(let id, let reason):
            return serviceUnavailable(
                "outcome-unknown",
                detail: "the connection to the shared log broke while the change of the store \(id) was being committed, and whether it took effect is unknown (\(reason)); retry it (PUT and DELETE can be repeated), or GET /stores/\(id) to see"
            )
        case .defaultCannotBeDeleted:
            return Problem(
                type: type("default-store-undeletable"),
                title: "Method Not Allowed",
                status: 405,
                detail: "the store default serves the root routes and always exists; it cannot be deleted",
                headers: ["Allow": "GET, HEAD, PUT"]
            )
        }
    }

    /// 400: a query parameter of `GET /stores` out of its range.
    static func badStoreListing(_ detail: String, field: String) -> Problem {
        Problem(title: "Bad Request", status: 400, detail: detail, field: field)
    }
}

extension Problem {
    /// 412: `PUT /stores/{id}` with `If-None-Match: *` for a store that exists.
    static func storeExists(_ id: StoreID) -> Problem {
        Problem(
            type: type("store-exists"),
            title: "Precondition Failed",
            status: 412,
            detail: "the store \(id) exists already (If-None-Match: * asks to create it only); nothing changed"
        )
    }
}

extension Problem {
    /// 412: a write with `If-Match` to a store that does not exist (with `autoCreateStores`, which
    /// would otherwise create it): no version of it can match, `*` neither; nothing was created.
    static func noStoreToMatch(_ id: StoreID) -> Problem {
        Problem(
            type: type("version-mismatch"),
            title: "Precondition Failed",
            status: 412,
            detail: "the store \(id) does not exist, so If-Match matches no version of it; nothing was created or applied"
        )
    }
}
