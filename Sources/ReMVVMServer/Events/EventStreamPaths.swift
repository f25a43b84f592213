/// The paths of the event streams: `/events`, `/viewmodels/events` and
/// `/viewmodels/<name>/events`, at the root or under `/stores/<id>`.
///
/// Compared as bytes: the access gate asks for every request when tokens are configured, and
/// through `Substring`'s `hasPrefix`/`hasSuffix` that cost about 1,500 instructions a request.
enum EventStreamPaths {
    /// Whether `path` (decoded, without the query) is one of them.
    static func contains(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            if isStream(bytes[...]) { return true }
            guard hasPrefix(bytes[...], "/stores/") else { return false }
            // The store's id runs to the next slash; the rest is the path within the store.
            var rest = bytes[(bytes.startIndex + 8)...]
            while let first = rest.first, first != UInt8(ascii: "/") {
                rest = rest.dropFirst()
            }
            return isStream(rest)
        }
    }

    /// Whether `path` is a stream's path relative to its store.
    private static func isStream(_ path: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        equals(path, "/events") || (hasPrefix(path, "/viewmodels/") && hasSuffix(path, "/events"))
    }

    private static func equals(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && hasPrefix(bytes, literal)
    }

    private static func hasPrefix(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ literal: StaticString) -> Bool {
        bytes.count >= literal.utf8CodeUnitCount
            && bytes.prefix(literal.utf8CodeUnitCount).elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private static func hasSuffix(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ literal: StaticString) -> Bool {
        bytes.count >= literal.utf8CodeUnitCount
            && bytes.suffix(literal.utf8CodeUnitCount).elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
