import Synchronization

/// The static tokens verified since the start, remembered by a keyed 128-bit fingerprint so that
/// a token presented again (every request of a client) skips SHA-256: the fingerprint costs about
/// a tenth of the digest (`docs/benchmarks.md`).
///
/// It keeps no token, only fingerprints: two SipHash values under four random 64-bit keys drawn
/// at the start and never shown. To be let in through it, a token must have the fingerprint of a
/// token that SHA-256 verified before — without knowing the keys, one chance in 2^128 per try.
/// Only verified tokens are remembered, so guesses cannot fill it; it has a fixed number of
/// slots, and a token whose slot another took is verified by SHA-256 again.
final class VerifiedTokenCache: Sendable {
    /// A token's keyed fingerprint.
    struct Fingerprint: Equatable {
        let first: UInt64
        let second: UInt64
    }

    private struct Slot {
        let fingerprint: Fingerprint
        /// The configured entry the token matched.
        let entry: Int
    }

    /// How many verified tokens it remembers at once.
    static let slotCount = 64

    private let keys: (UInt64, UInt64, UInt64, UInt64)
    private let slots: Mutex<[Slot?]>

    init() {
        var random = SystemRandomNumberGenerator()
        keys = (random.next(), random.next(), random.next(), random.next())
        slots = Mutex([Slot?](repeating: nil, count: Self.slotCount))
    }

    /// Whether `token` is remembered now (for tests: the next lookup of it skips SHA-256).
    func remembers(_ token: some StringProtocol) -> Bool {
        entry(for: fingerprint(of: token)) != nil
    }

    /// The keyed fingerprint of `token`'s UTF-8 bytes.
    func fingerprint(of token: some StringProtocol) -> Fingerprint {
        token.utf8.withContiguousStorageIfAvailable { fingerprint(of: UnsafeRawBufferPointer($0)) }
            ?? Array(token.utf8).withUnsafeBytes { fingerprint(of: $0) }
    }

    /// The configured entry a token with `fingerprint` matched, if it was verified and is still
    /// remembered.
    func entry(for fingerprint: Fingerprint) -> Int? {
        slots.withLock { slots -> Int? in
            guard let slot = slots[Self.index(of: fingerprint)], slot.fingerprint == fingerprint else { return nil }
            return slot.entry
        }
    }

    /// Remembers that the token with `fingerprint` matched `entry`.
    func remember(_ fingerprint: Fingerprint, entry: Int) {
        slots.withLock { $0[Self.index(of: fingerprint)] = Slot(fingerprint: fingerprint, entry: entry) }
    }

    private func fingerprint(of bytes: UnsafeRawBufferPointer) -> Fingerprint {
        var first = Hasher()
        first.combine(keys.0)
        first.combine(keys.1)
        first.combine(bytes: bytes)
        var second = Hasher()
        second.combine(keys.2)
        second.combine(keys.3)
        second.combine(bytes: bytes)
        return Fingerprint(
            first: UInt64(truncatingIfNeeded: first.finalize()), second: UInt64(truncatingIfNeeded: second.finalize())
        )
    }

    private static func index(of fingerprint: Fingerprint) -> Int {
        Int(fingerprint.first % UInt64(slotCount))
    }
}
