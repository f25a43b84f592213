/// How a server-sent-events response ended.
public enum SSEStreamEnd: Sendable, Equatable {
    /// The chunked terminator arrived: the server ended the response on purpose.
    case clean
    /// The connection closed without the terminator (dropped by the server or the network).
    case aborted
}
