/// The paths of the event streams: `/events`, `/viewmodels/events` and
/// `/viewmodels/<name>/events`, at the root or under `/stores/<id>`.
///
/// Compared as bytes: the access gate asks for every request when tokens are configured, and
/// through `Substring`'s `hasPrefix`/`hasSuffix` that cost about 1,500 instructions a request.
enum EventStreamPaths {
    /// Whether `path` (decoded, without the query) is one of them.
    static func contains(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { contains(bytes: $0) }
    }

    /// Whether the path of these UTF-8 bytes is one of them.
    static func contains(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if isStream(bytes[...]) { return true }
        guard bytes[...].starts(with: "/stores/") else { return false }
        // The store's id runs to the next slash; the rest is the path within the store.
        var rest = bytes[(bytes.startIndex + 8)...]
        while let first = rest.first, first != UInt8(ascii: "/") {
            rest = rest.dropFirst()
        }
        return isStream(rest)
    }

    /// Whether `path` is a stream's path relative to its store.
    private static func isStream(_ path: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        path.equals("/events") || (path.starts(with: "/viewmodels/") && path.ends(with: "/events"))
    }
}
