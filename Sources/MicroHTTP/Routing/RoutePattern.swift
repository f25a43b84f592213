/// A parsed route pattern such as `/viewmodels/:name`: `/`-separated segments, each
/// either literal or a `:name` parameter that matches exactly one non-empty segment.
struct RoutePattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]

    /// The pattern normalized back to text (used as the identity of a route).
    let text: String

    /// The UTF-8 bytes of each literal segment (nil for a parameter), for ``match(_:)``.
    private let literalBytes: [[UInt8]?]

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
        literalBytes = segments.map { segment in
            if case .literal(let value) = segment { Array(value.utf8) } else { nil }
        }
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

    /// Matches `path` segment by segment; returns the captured parameters, or `nil` when it does not match.
    ///
    /// Works on the path's UTF-8 bytes: segments end at the byte `/` (a delimiter wherever it is,
    /// RFC 3986), a literal segment matches when its bytes are the path segment's bytes (exact, as
    /// the router documents: no Unicode normalization), and nothing is allocated until the whole
    /// path matched — a router tries every parameter route in turn, and most do not match. (The
    /// earlier segment-by-segment `Substring` comparison cost about 6,800 instructions per
    /// `POST /stores/{id}/actions`, the fourth route tried.)
    func match(_ path: String) -> RouteParameters? {
        if let matched = path.utf8.withContiguousStorageIfAvailable({ match(bytes: $0) }) {
            return matched
        }
        return Array(path.utf8).withUnsafeBufferPointer { match(bytes: $0) }
    }

    private func match(bytes: UnsafeBufferPointer<UInt8>) -> RouteParameters? {
        let slash = UInt8(ascii: "/")
        var start = bytes.first == slash ? 1 : 0
        var parameterCount = 0
        // First pass: does it match? Nothing is allocated.
        for (index, segment) in segments.enumerated() {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            let isLast = index == segments.count - 1
            if isLast ? end != bytes.endIndex : end == bytes.endIndex {
                return nil
            }
            switch segment {
            case .literal:
                guard let literal = literalBytes[index], literal.elementsEqual(bytes[start..<end]) else { return nil }
            case .parameter:
                guard end > start else { return nil }
                parameterCount += 1
            }
            start = isLast ? end : end + 1
        }
        guard parameterCount > 0 else { return RouteParameters() }
        // Second pass: capture the parameters (a `/` is one byte of its own: segment bounds are
        // character bounds, so the bytes decode to exactly the path's text).
        var captured: [(name: String, value: String)] = []
        captured.reserveCapacity(parameterCount)
        start = bytes.first == slash ? 1 : 0
        for segment in segments {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            if case .parameter(let name) = segment {
                captured.append((name, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
            }
            start = end + 1
        }
        return RouteParameters(named: captured)
    }
}
