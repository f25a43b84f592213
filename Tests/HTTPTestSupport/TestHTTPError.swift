/// Why a test client operation failed.
public struct TestHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// The host could not be parsed or the connection was refused.
        case connectFailed
        /// Nothing (or not enough) arrived before the deadline.
        case timeout
        /// The server closed the connection in the middle of a response.
        case connectionClosed
        /// The bytes received are not a valid HTTP/1.1 response.
        case malformedResponse
        /// Writing to the socket failed.
        case writeFailed
    }

    /// The kind of failure.
    public let code: Code
    /// Details, for test failure messages.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message with its code, for test failure messages.
    public var description: String { "\(code): \(message)" }
}
