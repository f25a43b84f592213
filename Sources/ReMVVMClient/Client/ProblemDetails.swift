/// An RFC 9457 problem the server answered with (`application/problem+json`), with the members
/// docs/http-api.md lists.
public struct ProblemDetails: Decodable, Sendable, Equatable {
    /// `about:blank` or a `urn:remvvm:problem:<name>` URI.
    public var type: String
    /// A short summary.
    public var title: String?
    /// The HTTP status.
    public var status: Int?
    /// What went wrong with this request.
    public var detail: String?
    /// The names the server knows, when a name was unknown.
    public var known: [String]?
    /// The JSON path of the offending field.
    public var field: String?
    /// The position of the offending action in a batch.
    public var index: Int?
    /// The store's version, with `412 version-mismatch`.
    public var currentVersion: UInt64?

    /// The name after `urn:remvvm:problem:` (`version-mismatch`), nil for another type.
    public var name: String? {
        let prefix = "urn:remvvm:problem:"
        return type.hasPrefix(prefix) ? String(type.dropFirst(prefix.count)) : nil
    }
}
