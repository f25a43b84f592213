/// The paths of the event streams: `/events`, `/viewmodels/events` and
/// `/viewmodels/<name>/events`.
enum EventStreamPaths {
    /// Whether `path` (decoded, without the query) is one of them.
    static func contains(_ path: String) -> Bool {
        path == "/events" || (path.hasPrefix("/viewmodels/") && path.hasSuffix("/events"))
    }
}
