public import Foundation

/// The `Idempotency-Key`s the client draws: version 7 UUIDs (RFC 9562, section 5.7), whose first 48
/// bits count the milliseconds since 1970 and whose other 74 free bits are random, so that keys
/// sort (as text, too) in the order they were drawn.
///
/// A server keeps the answer of every keyed request for a day in an index by key (ours: the
/// journal's `answers`, docs/journal.md). A random key (version 4) lands on a random page of that
/// index, and a durable server writes that page again with every commit; keys that follow the clock
/// all land beside the newest ones. On a durable server a `POST /actions` with a time-ordered key
/// costs about 12 µs (a fifth) less CPU than with a random one (docs/benchmarks.md, 2026-11-30,
/// "time-ordered keys").
public enum TimeOrderedKey {
    /// A new key for a request sent at `date`: a UUID of version 7, 36 characters.
    public static func draw(at date: Date = Date()) -> String {
        var random = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        func time(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * index)) }
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (8 * index)) }
        let uuid = UUID(uuid: (
            time(0), time(1), time(2), time(3), time(4), time(5),
            0x70 | (byte(high, 0) & 0x0F), byte(high, 1),  // the version, 7; 12 random bits
            0x80 | (byte(high, 2) & 0x3F), byte(high, 3),  // the variant, 0b10; 62 random bits
            byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5)
        ))
        return uuid.uuidString
    }
}
