/// Why a request of the client failed: a code to switch on, a message for people, and the server's
/// problem details when it sent some.
public struct ClientError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: Sendable, Equatable {
        /// The server answered with an error status that is not retried (4xx), or a 5xx after the
        /// retries ran out; ``ClientError/problem`` holds its details when it sent problem+json.
        case status(Int)
        /// The network failed (no connection, reset, timeout) and the retries ran out.
        case network
        /// The answer is not what the API promises (not JSON, a missing member, a bad patch).
        case invalidResponse
        /// An action, body or answer could not be encoded or decoded with the app's types.
        case coding
        /// The action's type was never registered with ``ActionNames``.
        case unregisteredAction
        /// The URL given cannot be used as a base URL.
        case invalidURL
    }

    /// What kind of failure.
    public let code: Code
    /// What happened, for people.
    public let message: String
    /// The server's RFC 9457 problem details, when the answer carried some.
    public let problem: ProblemDetails?

    /// Creates an error.
    public init(_ code: Code, _ message: String, problem: ProblemDetails? = nil) {
        self.code = code
        self.message = message
        self.problem = problem
    }

    /// The message.
    public var description: String { message }
}
