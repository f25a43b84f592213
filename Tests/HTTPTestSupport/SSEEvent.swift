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
