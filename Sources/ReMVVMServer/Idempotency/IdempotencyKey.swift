import Crypto

/// A validated `Idempotency-Key` and the fingerprint of the request that carried it.
struct IdempotencyKey: Sendable, Equatable {
    /// The key as the client sent it.
    let value: String
    /// SHA-256 of the method, the path and the body: a retry must send the same request.
    let fingerprint: [UInt8]

    /// The longest key accepted.
    static let maxLength = 255

    /// Validates `header` (1–255 visible ASCII characters, no spaces) and fingerprints the request;
    /// nil when the header is not a valid key.
    init?(header: String, method: String, path: String, body: [UInt8]) {
        let bytes = header.utf8
        guard (1...Self.maxLength).contains(bytes.count),
              bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        value = header
        var hash = SHA256()
        hash.update(data: Array("\(method) \(path)\n".utf8))
        hash.update(data: body)
        fingerprint = Array(hash.finalize())
    }
}
