import Crypto

/// A validated `Idempotency-Key` and the fingerprint of the request that carried it.
struct IdempotencyKey: Sendable, Equatable {
    /// The key as the client sent it.
    let value: String
    /// SHA-256 of the method, the path and the body: a retry must send the same request.
    let fingerprint: [UInt8]

    /// The longest key accepted.
    static let maxLength = 255

    /// Whether an `Idempotency-Key` field is a key: 1 to ``maxLength`` visible ASCII characters.
    static func isWellFormed(_ header: String) -> Bool {
        let bytes = header.utf8
        return (1...maxLength).contains(bytes.count) && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// Validates `header` (1–255 visible ASCII characters, no spaces) and fingerprints the request;
    /// nil when the header is not a valid key.
    init?(header: String, method: String, path: String, body: [UInt8]) {
        guard Self.isWellFormed(header) else { return nil }
        value = header
        // The bytes of `METHOD path\n`, then the body, fed to the hash where they lie: through
        // `update(data:)` each was first copied into an array of its own (about 4,000
        // instructions of a keyed `POST`).
        var hash = SHA256()
        Self.feed(method, to: &hash)
        withUnsafeBytes(of: UInt8(ascii: " ")) { hash.update(bufferPointer: $0) }
        Self.feed(path, to: &hash)
        withUnsafeBytes(of: UInt8(ascii: "\n")) { hash.update(bufferPointer: $0) }
        body.withUnsafeBytes { hash.update(bufferPointer: $0) }
        fingerprint = hash.finalize().withUnsafeBytes { Array($0) }
    }

    /// Feeds `text`'s UTF-8 to `hash`: in place for a native string, else a copy.
    private static func feed(_ text: String, to hash: inout SHA256) {
        var text = text
        text.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }
}
