/// A parsed route pattern such as `/viewmodels/:name`: `/`-separated segments, each
/// either literal or a `:name` parameter that matches exactly one non-empty segment.
///
/// A class (immutable): the router copies a route out of its table for each request it answers,
/// and a copy of a struct of five arrays and strings retained each of them.
final class RoutePattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// A segment as ``match(bytes:)`` reads it: a parameter, or the literal whose bytes are
    /// `literalBytes[start..<start + count]`. Plain integers: reading one retains nothing (the
    /// `Segment`s' strings were retained and released at each segment of each route tried).
    private struct Matcher: Sendable {
        let isParameter: Bool
        let start: Int
        let count: Int
    }

    let segments: [Segment]

    /// The pattern normalized back to text (used as the identity of a route).
    let text: String

    /// The segments, for ``match(bytes:)``.
    private let matchers: [Matcher]
    /// The bytes of every literal segment, one after the other.
    private let literalBytes: [UInt8]
    /// The parameters' names, in order.
    private let parameterNames: [String]
    /// How many segments a path it matches has (``segmentCount(of:)``).
    let segmentCount: Int

    init(_ pattern: String) {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst(pattern.hasPrefix("/") ? 1 : 0)
        segments = parts.map { part in
            part.first == ":" && part.count > 1 ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
        text = "/" + segments.map { segment in
            switch segment {
            case .literal(let value): value
            case .parameter(let name): ":" + name
            }
        }.joined(separator: "/")
        var bytes: [UInt8] = []
        var names: [String] = []
        matchers = segments.map { segment in
            switch segment {
            case .literal(let value):
                defer { bytes += value.utf8 }
                return Matcher(isParameter: false, start: bytes.count, count: value.utf8.count)
            case .parameter(let name):
                names.append(name)
                return Matcher(isParameter: true, start: 0, count: 0)
            }
        }
        literalBytes = bytes
        parameterNames = names
        segmentCount = segments.count
    }

    /// How many `/`-separated segments the path of `bytes` has, as ``match(bytes:)`` cuts them
    /// (a leading `/` starts the first): a pattern of another count cannot match it, which the
    /// router tells without trying the pattern.
    static func segmentCount(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var slashes = 0
        for byte in bytes where byte == UInt8(ascii: "/") {
            slashes += 1
        }
        return bytes.first == UInt8(ascii: "/") ? slashes : slashes + 1
    }

    static func == (lhs: RoutePattern, rhs: RoutePattern) -> Bool {
        lhs.segments == rhs.segments
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(segments)
    }

    /// Whether every segment is literal (the pattern matches exactly one path).
    var isLiteral: Bool {
        segments.allSatisfy { if case .literal = $0 { true } else { false } }
    }

    /// How many literal segments precede the first parameter; more means more specific.
    var literalPrefixLength: Int {
        segments.prefix { if case .literal = $0 { true } else { false } }.count
    }

    /// The first segment when it is literal (a path must start with it to match), else nil.
    var firstLiteral: String? {
        if case .literal(let value) = segments.first { value } else { nil }
    }

    /// Matches `path` segment by segment; returns the captured parameters, or `nil` when it does not match.
    func match(_ path: String) -> RouteParameters? {
        if let matched = path.utf8.withContiguousStorageIfAvailable({ match(bytes: $0) }) {
            return matched
        }
        return Array(path.utf8).withUnsafeBufferPointer { match(bytes: $0) }
    }

    /// Matches the path of `bytes` (its UTF-8) segment by segment; the captured parameters, or nil.
    ///
    /// Segments end at the byte `/` (a delimiter wherever it is, RFC 3986), a literal segment
    /// matches when its bytes are the path segment's bytes (exact, as the router documents: no
    /// Unicode normalization), and nothing is allocated or retained until the whole path matched —
    /// a router tries several parameter routes in turn, and most do not match. (The earlier
    /// segment-by-segment `Substring` comparison cost about 6,800 instructions per
    /// `POST /stores/{id}/actions`, the fourth route tried.)
    func match(bytes: UnsafeBufferPointer<UInt8>) -> RouteParameters? {
        let matched = matchers.withUnsafeBufferPointer { matchers in
            literalBytes.withUnsafeBufferPointer { literals in
                Self.matches(bytes, matchers, literals)
            }
        }
        guard matched else { return nil }
        guard !parameterNames.isEmpty else { return RouteParameters() }
        // Second pass: capture the parameters (a `/` is one byte of its own: segment bounds are
        // character bounds, so the bytes decode to exactly the path's text).
        let slash = UInt8(ascii: "/")
        var captured: [(name: String, value: String)] = []
        captured.reserveCapacity(parameterNames.count)
        var start = 1
        for matcher in matchers {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            if matcher.isParameter {
                let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                captured.append((parameterNames[captured.count], value))
            }
            start = end + 1
        }
        return RouteParameters(named: captured)
    }

    /// Whether the path of `bytes` has the segments of `matchers` (literals in `literals`).
    private static func matches(
        _ bytes: UnsafeBufferPointer<UInt8>, _ matchers: UnsafeBufferPointer<Matcher>, _ literals: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let slash = UInt8(ascii: "/")
        // A path is absolute: what does not start with `/` matches no pattern (the server refuses
        // such a target before routing; a gate that reads paths from their `/` agrees).
        guard bytes.first == slash else { return false }
        var start = 1
        for index in matchers.indices {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            let isLast = index == matchers.count - 1
            if isLast ? end != bytes.endIndex : end == bytes.endIndex {
                return false
            }
            let matcher = matchers[index]
            if matcher.isParameter {
                guard end > start else { return false }
            } else {
                guard end - start == matcher.count,
                      literals[matcher.start..<matcher.start + matcher.count].elementsEqual(bytes[start..<end]) else {
                    return false
                }
            }
            start = isLast ? end : end + 1
        }
        return true
    }
}
