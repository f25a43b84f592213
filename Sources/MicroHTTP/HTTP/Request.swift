/// An HTTP request as handed to a ``Responder``: fully received, body included.
public struct Request: Sendable {
    /// The request method.
    public let method: HTTPMethod
    /// The percent-decoded path, without the query string (e.g. `/viewmodels/greeting`).
    public let path: String
    /// The decoded query parameters; when a name repeats, the last value wins.
    public let query: [String: String]
    /// The request header fields, in the order received.
    public let headers: HTTPHeaders
    /// The request body (empty when there is none).
    public let body: [UInt8]

    /// Creates a request; public so route logic can be tested without a socket.
    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}
