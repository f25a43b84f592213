public import CodedErrors

/// The kinds of ``HTTPServerError``.
public enum HTTPServerErrorCode: Sendable, Equatable {
    /// `host` is not an IP literal or `localhost`.
    case invalidHost
    /// The configuration has an out-of-range value (port, thread count, limits).
    case invalidConfiguration
    /// Another socket already listens on the address.
    case addressInUse
    /// The process may not bind the address (e.g. a port below 1024).
    case permissionDenied
    /// Creating, binding or listening on the socket failed for another reason.
    case socketFailed
    /// libmicrohttpd refused to start the daemon.
    case daemonFailed
    /// ``HTTPServer/start()`` was called on a server that is running or was shut down.
    case alreadyStarted
}

/// Why an ``HTTPServer`` could not start. The message says what happened, with the address and
/// system error where relevant.
public typealias HTTPServerError = CodedError<HTTPServerErrorCode>
