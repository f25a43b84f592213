import Foundation

/// How store versions are shown to clients: the `ETag` of `GET /state` and the `id:` of events.
///
/// A version number alone names a state only while the versions it counts cannot start again.
/// A store kept only in memory starts again at 0 in every process, so there a tag also carries
/// an instance token drawn at random when the service is created: `"5-3f9a2c1b"`. A tag cached
/// from an earlier process then never matches a different state of a later one, and a client
/// can see that the event ids it stored came from another instance. The number before the `-`
/// is the version, so `parseInt`-style readers still get it.
public struct VersionTags: Sendable, Equatable {
    /// The instance token, or nil when versions are plain numbers (a store whose versions
    /// survive restarts).
    public let instance: String?

    /// Plain version numbers: `"5"`.
    public static let plain = VersionTags(instance: nil)

    /// Versions qualified by a new random instance token (eight hex digits).
    public static func randomInstance() -> VersionTags {
        VersionTags(instance: String(format: "%08x", UInt32.random(in: .min ... .max)))
    }

    /// Versions qualified by `instance`, which must be non-empty visible ASCII without `"`.
    public init(instance: String?) {
        self.instance = instance
    }

    /// The event id / tag text of `version`: `5` or `5-3f9a2c1b`.
    public func tag(_ version: UInt64) -> String {
        var text = String(version)
        if let instance {
            text += "-"
            text += instance
        }
        return text
    }

    /// The version a strong entity tag of this instance names (`"5"`, or `"5-3f9a2c1b"` with
    /// this instance's token), or nil: a weak tag, another instance's, or not a tag at all.
    public func version(ofETag etag: Substring) -> UInt64? {
        guard etag.count >= 2, etag.first == "\"", etag.last == "\"" else { return nil }
        return version(ofTag: etag.dropFirst().dropLast())
    }

    /// The version an event id of this instance names (`5`, or `5-3f9a2c1b` with this
    /// instance's token), or nil.
    public func version(ofEventId id: Substring) -> UInt64? {
        version(ofTag: Self.withoutBlanksAround(id))
    }

    /// `text` without the spaces and tabs around it: a field value excludes them (RFC 9110
    /// §5.5), libmicrohttpd keeps what trails, and a query parameter may carry either.
    static func withoutBlanksAround(_ text: Substring) -> Substring {
        var trimmed = text.drop { $0 == " " || $0 == "\t" }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// The version `tag(_:)` wrote as `text`, or nil (another instance's token, not a number).
    /// Only the exact text `tag(_:)` writes names a version: tags compare character by character
    /// (RFC 9110 §8.8.3.2), so `"014"` or `"+14"` is not the tag `"14"`.
    private func version(ofTag text: Substring) -> UInt64? {
        var digits = text
        if let instance {
            let suffix = "-" + instance
            guard text.hasSuffix(suffix) else { return nil }
            digits = text.dropLast(suffix.count)
        }
        guard let version = UInt64(digits), digits.elementsEqual(String(version)) else { return nil }
        return version
    }

    /// The `ETag` header value of `version` (a strong tag): `"5"` or `"5-3f9a2c1b"`.
    ///
    /// Appended piece by piece rather than interpolated: up to 15 bytes (a version below 10^4
    /// with its instance token) the text stays a small string, with no allocation; interpolation
    /// reserves a buffer every time (this runs for every `GET /state` and every answer to a POST).
    public func etag(_ version: UInt64) -> String {
        var text = "\""
        text += tag(version)
        text += "\""
        return text
    }
}
