/// What a `GET /events` stream sends after its first event (the full state): each version's full
/// state, or, with `?delta=json-patch`, the JSON Patch from the version before
/// (`docs/http-api.md`, "Deltas").
enum EventFormat: Sendable, Equatable {
    /// `state` events: every version's whole state.
    case states
    /// `patch` events: RFC 6902 operations turning the previous state into this one.
    case jsonPatch

    /// The values `delta=` may take.
    static let deltaValues = ["json-patch"]

    /// The format a request asks for with its `delta` query parameter (absent: ``states``), or
    /// nil for a value the server does not know.
    init?(deltaParameter value: String?) {
        switch value {
        case nil: self = .states
        case "json-patch": self = .jsonPatch
        default: return nil
        }
    }
}
