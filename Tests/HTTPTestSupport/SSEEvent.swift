/// One server-sent event: the fields of a block of lines ended by a blank line.
public struct SSEEvent: Sendable, Equatable {
    /// The `id:` field, if any.
    public var id: String?
    /// The `event:` field, if any (clients treat a missing one as "message").
    public var event: String?
    /// The `data:` lines joined with "\n".
    public var data: String

    /// Creates an event.
    public init(id: String? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// What an ``SSEClient`` can read next.
public enum SSEItem: Sendable, Equatable {
    /// A complete event.
    case event(SSEEvent)
    /// A comment line (starting with ":"), such as a heartbeat; the text after the colon.
    case comment(String)
}

/// How a server-sent-events response ended.
public enum SSEStreamEnd: Sendable, Equatable {
    /// The chunked terminator arrived: the server ended the response on purpose.
    case clean
    /// The connection closed without the terminator (dropped by the server or the network).
    case aborted
}
