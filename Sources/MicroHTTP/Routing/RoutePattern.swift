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
    func match(_ path: String) -> RouteParameters? {
        var captured: [(String, String)] = []
        var remaining = Substring(path)
        if remaining.first == "/" {
            remaining = remaining.dropFirst()
        }
        for (index, segment) in segments.enumerated() {
            let end = remaining.firstIndex(of: "/") ?? remaining.endIndex
            let part = remaining[remaining.startIndex..<end]
            let isLast = index == segments.count - 1
            if isLast ? end != remaining.endIndex : end == remaining.endIndex {
                return nil
            }
            switch segment {
            case .literal(let value):
                guard part == value else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                captured.append((name, String(part)))
            }
            remaining = isLast ? remaining[end...] : remaining[remaining.index(after: end)...]
        }
        return RouteParameters(captured)
    }
}
