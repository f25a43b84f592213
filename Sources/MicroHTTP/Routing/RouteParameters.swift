/// The values captured by a route pattern's `:name` segments, e.g. `name` in `/viewmodels/:name`.
public struct RouteParameters: Sendable {
    private let values: [(name: String, value: String)]

    /// Creates parameters from name/value pairs; mostly useful in tests.
    public init(_ values: [(String, String)] = []) {
        self.values = values.map { (name: $0.0, value: $0.1) }
    }

    /// Parameters already in their stored shape (no copy).
    init(named values: [(name: String, value: String)]) {
        self.values = values
    }

    /// The value captured for `name` (case-sensitive), or `nil` if the pattern has no such parameter.
    public subscript(_ name: String) -> String? {
        values.first { $0.name == name }?.value
    }

    /// Whether nothing was captured.
    public var isEmpty: Bool { values.isEmpty }
}
