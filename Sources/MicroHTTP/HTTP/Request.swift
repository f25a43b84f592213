/// An HTTP request as handed to a ``Responder``: fully received, body included.
public struct Request: Sendable {
    /// The request method.
    public let method: HTTPMethod
    /// The percent-decoded path, without the query string (e.g. `/viewmodels/greeting`).
    public let path: String
    /// The decoded query parameters; when a name repeats, the last value wins.
    public let query: [String: String]
    /// Every decoded query parameter in the order received, repeats included
    /// (`?name=a&name=b`); see ``queryValues(named:)``.
    public let queryItems: [(name: String, value: String)]
    /// The request header fields, in the order received.
    public let headers: HTTPHeaders
    /// The request body (empty when there is none).
    public let body: [UInt8]
    /// What the responder remembers on the connection the request came on, from one request to
    /// the next; nil for a request made without a connection (tests).
    public let connectionMemo: ConnectionMemo?

    /// Creates a request; public so route logic can be tested without a socket.
    ///
    /// - Parameter queryItems: every query parameter in order, repeats included; when nil, the
    ///   pairs of `query` (sorted by name).
    /// - Parameter connectionMemo: the memo of the connection it came on (``ConnectionMemo``).
    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        queryItems: [(name: String, value: String)]? = nil,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        connectionMemo: ConnectionMemo? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.queryItems = queryItems ?? query.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.headers = headers
        self.body = body
        self.connectionMemo = connectionMemo
    }
}

extension Request {
    /// Every value of the query parameter `name`, in the order received (`?name=a&name=b`).
    public func queryValues(named name: String) -> [String] {
        queryItems.compactMap { $0.name == name ? $0.value : nil }
    }
}
