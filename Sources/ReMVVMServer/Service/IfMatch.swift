import Foundation

/// What an `If-Match` field accepts, for a store whose versions are shown with given tags.
enum IfMatch {
    /// The condition a dispatch holds to: `*` or no field, any version; otherwise the versions the
    /// field's strong tags of this instance name (weak tags never match: strong comparison, RFC 9110
    /// §13.1.1). `tags` is read only when there is a field: over many stores a store's tags are a
    /// cold line that a request without `If-Match` does not need.
    static func condition(_ field: String?, tags: @autoclosure () -> VersionTags) -> @Sendable (UInt64) -> Bool {
        guard let field, let accepted = acceptedVersions(field, tags: tags()) else { return { _ in true } }
        return { accepted.contains($0) }
    }

    /// The versions `field` accepts, or nil for any (`*`); empty when it names none of this
    /// instance's strong tags.
    static func acceptedVersions(_ field: String, tags: VersionTags) -> Set<UInt64>? {
        var versions = Set<UInt64>()
        for candidate in field.split(separator: ",") {
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return nil }
            if let version = tags.version(ofETag: Substring(tag)) {
                versions.insert(version)
            }
        }
        return versions
    }
}
