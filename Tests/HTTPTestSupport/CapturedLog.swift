public import Logging

/// A logger whose messages a test can read: each is posted to ``messages`` as
/// `"<level> <message>"`.
public final class CapturedLog: Sendable {
    /// Every message logged so far, oldest first.
    public let messages = Mailbox<String>()

    public init() {}

    /// A logger writing here, at `level` and above.
    public func logger(level: Logger.Level = .info) -> Logger {
        let messages = messages
        var logger = Logger(label: "captured") { _ in CapturingHandler(messages: messages) }
        logger.logLevel = level
        return logger
    }
}

private struct CapturingHandler: LogHandler {
    let messages: Mailbox<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.post("\(event.level) \(event.message)")
    }
}
