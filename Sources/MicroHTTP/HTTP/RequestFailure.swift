/// Why the server refused a request before it reached routing.
public struct RequestFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The body is longer than ``HTTPServerConfiguration/maxBodyBytes`` (413).
        case bodyTooLarge
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable explanation, safe to show to the client.
    public let message: String
    /// The limit the request exceeded, in bytes, when there is one (``Code/bodyTooLarge``).
    public let limit: Int?

    /// Creates a failure.
    public init(code: Code, message: String, limit: Int? = nil) {
        self.code = code
        self.message = message
        self.limit = limit
    }

    /// The HTTP status this failure maps to.
    public var status: Int {
        switch code {
        case .bodyTooLarge: 413
        }
    }

    /// The message, for logs.
    public var description: String { message }

    /// A body-too-large failure that names the limit.
    public static func bodyTooLarge(limit: Int) -> RequestFailure {
        RequestFailure(code: .bodyTooLarge, message: "Request body exceeds the limit of \(limit) bytes.", limit: limit)
    }
}
