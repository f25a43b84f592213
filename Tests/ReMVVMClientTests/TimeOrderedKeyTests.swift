import Foundation
import ReMVVMClient
import Testing

/// The client's `Idempotency-Key`s: version 7 UUIDs that sort in the order they were drawn.
@Suite struct TimeOrderedKeyTests {
    @Test func aKeyIsAVersion7UUIDLedByTheMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_764_460_800.123_9)  // 2025-11-30 00:00:00.123 UTC
        let key = TimeOrderedKey.draw(at: date)
        let uuid = try #require(UUID(uuidString: key))
        #expect(key.count == 36)
        #expect(uuid.uuidString == key)
        let hex = key.replacingOccurrences(of: "-", with: "")
        #expect(UInt64(hex.prefix(12), radix: 16) == 1_764_460_800_123)
        #expect(Array(hex)[12] == "7", "the version nibble")
        let variant = try #require(UInt8(String(Array(hex)[16]), radix: 16))
        #expect(variant & 0b1100 == 0b1000, "the variant bits 10")
    }

    @Test func keysDrawnLaterSortAfterEarlierOnes() {
        let start = Date(timeIntervalSince1970: 1_764_460_800)
        // Each in the middle of its own millisecond (a whole count of them is not exact in binary).
        let keys = (0..<2_000).map { TimeOrderedKey.draw(at: start.addingTimeInterval((Double($0) + 0.5) / 1000)) }
        let outOfOrder = zip(keys, keys.dropFirst()).filter { $0 >= $1 }
        #expect(outOfOrder.isEmpty, "\(outOfOrder.prefix(3))")
    }

    @Test func keysOfOneMillisecondDifferInTheirRandomBits() {
        let date = Date(timeIntervalSince1970: 1_764_460_800)
        let keys = (0..<10_000).map { _ in TimeOrderedKey.draw(at: date) }
        #expect(Set(keys).count == keys.count)
        #expect(Set(keys.map { $0.prefix(13) }).count == 1, "one millisecond: the same first 48 bits")
    }
}
