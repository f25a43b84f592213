import Journal

extension Problem {
    /// 404: no store has this id (or the caller may not know that it exists).
    static func storeNotFound(_ id: StoreID) -> Problem {
        Problem(
            type: type("store-not-found"),
            title: "Store not found",
            status: 404,
            detail: "there is no store \"\(id.rawValue)\""
        )
    }

    /// 400: `/stores/{id}/…` with an id that breaks the id rules (`StoreIDError/rule`).
    static func invalidStoreID(_ text: String, _ error: StoreIDError) -> Problem {
        Problem(
            type: type("invalid-store-id"),
            title: "Bad Request",
            status: 400,
            detail: "\"\(text)\" is not a store id: \(error.rule)",
            field: "store"
        )
    }

    /// 500: an action that has no wire name (or cannot be encoded) would have been reduced: it
    /// could not be journaled, streamed or shown in the action log, so it was not dispatched.
    static func actionNotJournaled(_ reason: String) -> Problem {
        Problem(type: type("action-not-journaled"), title: "Action cannot be journaled", status: 500, detail: reason)
    }
}
