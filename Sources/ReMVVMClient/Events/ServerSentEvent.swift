/// One event of a `text/event-stream`, as the HTML standard's parser dispatches it.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `message` when the block had none.
    public var type: String
    /// The `data:` lines joined with line feeds.
    public var data: String
    /// The `id:` field of this block, nil when the block had none.
    public var id: String?

    /// Creates an event.
    public init(type: String = "message", data: String, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }
}
