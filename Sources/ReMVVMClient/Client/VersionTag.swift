/// A version as the server tags it: an `ETag`'s value or an event id, `"42"` with a journal or
/// `"42-3f9a2c1b"` in memory. Send it back in `If-Match` (``ReMVVMClient/dispatch(_:ifMatch:)``).
public struct VersionTag: Sendable, Hashable, CustomStringConvertible {
    /// The tag as the server wrote it, without quotes.
    public let text: String

    /// Creates a tag from an event id or an `ETag`'s value (quotes and `W/` are removed).
    public init(_ text: String) {
        var tag = Substring(text)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        self.text = String(tag)
    }

    /// The version number before any `-<instance>`, nil when the tag does not start with one.
    public var version: UInt64? {
        UInt64(text.prefix { $0 != "-" })
    }

    /// The tag quoted, as `If-Match` carries it.
    public var quoted: String { "\"\(text)\"" }

    /// The tag.
    public var description: String { text }
}
