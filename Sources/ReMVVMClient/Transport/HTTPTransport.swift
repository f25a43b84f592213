public import Foundation

/// One HTTP request as the client sends it: the method, the absolute URL, the header fields in
/// order and the body.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The absolute URL, query included.
    public var url: URL
    /// Header fields in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The body, nil for none.
    public var body: [UInt8]?
    /// How long the request may go without receiving a byte before it fails.
    public var idleTimeout: Duration

    /// Creates a request.
    public init(
        method: String,
        url: URL,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        idleTimeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
    }

    /// The value of the first header field named `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The head of an HTTP answer: its status and header fields.
public struct HTTPResponseHead: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, names lowercased (the last value of a repeated field).
    public var headers: [String: String]

    /// Creates a head; `headers`' names are lowercased.
    public init(status: Int, headers: [String: String]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The value of the header field `name` (any case).
    public subscript(header name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// A whole HTTP answer: head and body.
public struct HTTPResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponseHead
    /// The body's bytes.
    public var body: [UInt8]

    /// Creates an answer.
    public init(head: HTTPResponseHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }
}

/// An HTTP answer whose body arrives over time (an event stream): the head, then the body's bytes
/// as they come. Ending the iteration (or cancelling its task) closes the connection.
public struct HTTPStreamingResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponseHead
    /// The body's bytes, in pieces as they arrive; finishes when the server ends the answer and
    /// throws when the connection fails.
    public var body: AsyncThrowingStream<[UInt8], any Error>

    /// Creates a streaming answer.
    public init(head: HTTPResponseHead, body: AsyncThrowingStream<[UInt8], any Error>) {
        self.head = head
        self.body = body
    }
}

/// How the client talks HTTP. ``URLSessionTransport`` is the one to use; tests wrap it to delay or
/// drop answers. Any error a transport throws counts as a network failure (retried, reconnected).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole answer.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
    /// Sends `request` and returns once the answer's head arrived, with its body still arriving.
    func stream(_ request: HTTPRequest) async throws -> HTTPStreamingResponse
}
