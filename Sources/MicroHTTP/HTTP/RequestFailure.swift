/// Why the server refused a request before it reached routing.
public struct RequestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Creates a failure.
    public init(code: Code, message: String, limit: Int? = nil) {
        self.code = code
        self.message = message
        self.limit = limit
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable explanation, safe to show to the client.
    public let message: String
    /// The limit the request exceeded, in bytes, when there is one (``Code/bodyTooLarge``).
    public let limit: Int?

    /// The HTTP status this failure maps to.
    public var status: Int {
        switch code {
        case .bodyTooLarge: 413
        case .shuttingDown, .overloaded: 503
        case .malformedRequest: 400
        case .notImplemented: 501
        case .uriTooLong: 414
        }
    }

    /// Whether the connection must close after the answer.
    public var closesConnection: Bool {
        switch code {
        case .bodyTooLarge: false
        case .shuttingDown, .overloaded, .malformedRequest, .notImplemented, .uriTooLong: true
        }
    }

    /// The message, for logs.
    public var description: String { message }

    /// The status's reason phrase, e.g. "Service Unavailable".
    public var title: String {
        switch status {
        case 400: "Bad Request"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// Seconds after which a client may try again, for failures that are temporary (503).
    public var retryAfterSeconds: Int? {
        switch code {
        case .shuttingDown, .overloaded: 1
        case .bodyTooLarge, .malformedRequest, .notImplemented, .uriTooLong: nil
        }
    }

    /// The path or a query parameter is not UTF-8 once percent-decoded (`%FF`): shown as text,
    /// different bytes would read alike (`?key=%FF` and `?key=%FE` as the same key).
    public static let notUTF8 = RequestFailure(
        code: .malformedRequest,
        message: "the request's path or query is not UTF-8 once percent-decoded"
    )

    /// The request target is not a path beginning with `/` (RFC 9112 §3.2.1's origin-form): an
    /// absolute URI (meant for a proxy), an authority (`CONNECT`) or `*`.
    public static let notOriginForm = RequestFailure(
        code: .malformedRequest,
        message: "the request target must be a path beginning with \"/\" (origin-form); absolute URIs, authorities and \"*\" are not served"
    )

    /// The server is shutting down.
    public static let shuttingDown = RequestFailure(
        code: .shuttingDown,
        message: "The server is shutting down and takes no new requests; retry on another instance or after it restarts."
    )

    /// The connection limit is reached.
    public static func overloaded(limit: Int) -> RequestFailure {
        RequestFailure(
            code: .overloaded,
            message: "The server has its limit of \(limit) connections open; retry shortly.",
            limit: limit
        )
    }

    /// A malformed or ambiguous request head, with what is wrong.
    public static func malformedRequest(_ message: String) -> RequestFailure {
        RequestFailure(code: .malformedRequest, message: message)
    }

    /// A request feature the server does not implement.
    public static func notImplemented(_ message: String) -> RequestFailure {
        RequestFailure(code: .notImplemented, message: message)
    }

    /// A query too large to parse, naming the limit: `limit` bytes for the target's length plus
    /// `bytesPerParameter` per parameter (``QueryLimit``).
    public static func queryTooLarge(limit: Int, bytesPerParameter: Int) -> RequestFailure {
        RequestFailure(
            code: .uriTooLong,
            message: "the request's query is too large: the request target's length plus \(bytesPerParameter) bytes per query parameter may be at most \(limit) bytes (half of the memory the server gives each connection); send fewer parameters, or the data in a body",
            limit: limit
        )
    }

    /// A body-too-large failure that names the limit.
    public static func bodyTooLarge(limit: Int) -> RequestFailure {
        RequestFailure(code: .bodyTooLarge, message: "Request body exceeds the limit of \(limit) bytes.", limit: limit)
    }
}

extension RequestFailure {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The body is longer than ``HTTPServerConfiguration/maxBodyBytes`` (413).
        case bodyTooLarge
        /// The server is shutting down and takes no new requests (503, `Retry-After`); the
        /// connection closes after the answer.
        case shuttingDown
        /// The request head is malformed or ambiguous (400): conflicting framing headers, a
        /// missing or repeated `Host`, an invalid field name. The connection closes after the
        /// answer, since where the next request would begin is unknown.
        case malformedRequest
        /// The server has as many connections open as it is configured to serve (503,
        /// `Retry-After`); the connection closes after the answer.
        case overloaded
        /// The request uses a feature the server does not implement (501), such as a transfer
        /// coding other than chunked. The connection closes after the answer.
        case notImplemented
        /// The request target's query is larger than the server parses (414); the connection
        /// closes after the answer.
        case uriTooLong
    }
}
