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
    /// Segments are found by the byte `/` in the path's UTF-8 (a delimiter wherever it is, RFC
    /// 3986), not by `Character`: walking characters ran grapheme breaking over the path for
    /// every parameter route tried (about 6,000 instructions for `GET /viewmodels/counter`).
    /// Segments still compare as strings.
    func match(_ path: String) -> RouteParameters? {
        var captured: [(String, String)] = []
        let scalars = path.unicodeScalars
        let utf8 = path.utf8
        var start = utf8.startIndex
        if start != utf8.endIndex, utf8[start] == UInt8(ascii: "/") {
            start = utf8.index(after: start)
        }
        for (index, segment) in segments.enumerated() {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let isLast = index == segments.count - 1
            if isLast ? end != utf8.endIndex : end == utf8.endIndex {
                return nil
            }
            // Scalar-aligned bounds (a `/` is one scalar), kept as they are: no rounding to
            // a character boundary.
            let part = Substring(scalars[start..<end])
            switch segment {
            case .literal(let value):
                guard part == value else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                captured.append((name, String(part)))
            }
            start = isLast ? end : utf8.index(after: end)
        }
        return RouteParameters(captured)
    }
}
