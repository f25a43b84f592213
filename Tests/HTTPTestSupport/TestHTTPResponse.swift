/// A response as received by ``TestHTTPClient``.
public struct TestHTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public let status: Int
    /// The reason phrase, e.g. "OK".
    public let reason: String
    /// The header fields, in order, with case-insensitive lookup.
    public let headers: TestHTTPHeaders
    /// The body, de-chunked.
    public let body: [UInt8]
    /// Whether the body came with `Transfer-Encoding: chunked`.
    public let wasChunked: Bool

    /// Creates a response (used by the client's parser).
    public init(status: Int, reason: String, headers: TestHTTPHeaders, body: [UInt8], wasChunked: Bool) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.wasChunked = wasChunked
    }

    /// The body decoded as UTF-8.
    public var bodyString: String {
        String(decoding: body, as: UTF8.self)
    }
}

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
