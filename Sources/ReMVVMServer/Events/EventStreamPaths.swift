/// The paths of the event streams: `/events`, `/viewmodels/events` and
/// `/viewmodels/<name>/events`, at the root or under `/stores/<id>`.
enum EventStreamPaths {
    /// Whether `path` (decoded, without the query) is one of them.
    static func contains(_ path: String) -> Bool {
        isStream(path[...])
            || (path.hasPrefix("/stores/") && isStream(path.dropFirst("/stores/".count).drop { $0 != "/" }))
    }

    /// Whether `path` is a stream's path relative to its store.
    private static func isStream(_ path: Substring) -> Bool {
        path == "/events" || (path.hasPrefix("/viewmodels/") && path.hasSuffix("/events"))
    }
}
