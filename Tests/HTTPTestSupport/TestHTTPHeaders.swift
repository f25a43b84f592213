/// Received header fields: ordered pairs with case-insensitive lookup.
public struct TestHTTPHeaders: Sendable, Sequence {
    /// The fields in the order received.
    public let fields: [(name: String, value: String)]

    /// Creates headers from pairs.
    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// The first value for `name`, compared case-insensitively.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value for `name`, compared case-insensitively.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}
