/// The route that answered a request: its pattern, a bounded label (`/viewmodels/:name`), and its
/// number, its position among its router's patterns (``Router/patternCount``), for tables
/// indexed by route instead of hashing the pattern on every request.
public struct MatchedRoute: Sendable, Equatable {
    /// The pattern as registered.
    public let pattern: String
    /// Its position among the router's patterns, from 0, in the order they were first added.
    public let number: Int

    /// A route `pattern` numbered `number`.
    public init(pattern: String, number: Int) {
        self.pattern = pattern
        self.number = number
    }
}
