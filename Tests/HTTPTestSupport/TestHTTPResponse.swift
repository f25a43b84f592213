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
}
