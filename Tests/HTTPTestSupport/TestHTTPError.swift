public import CodedErrors

/// The kinds of ``TestHTTPError``.
public enum TestHTTPErrorCode: Sendable, Equatable {
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

/// Why a test client operation failed; the message gives the details, for test failure messages.
public typealias TestHTTPError = CodedError<TestHTTPErrorCode>
