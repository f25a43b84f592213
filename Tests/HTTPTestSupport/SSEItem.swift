/// What an ``SSEClient`` can read next.
public enum SSEItem: Sendable, Equatable {
    /// A complete event.
    case event(SSEEvent)
    /// A comment line (starting with ":"), such as a heartbeat; the text after the colon.
    case comment(String)
}
