import HTTPTestSupport
import Journal
import Testing

/// CRC-32C and the checksums of records and snapshots (`docs/journal.md`, "Checksums").
@Suite struct ChecksumTests {
    /// One byte at a time, straight from the polynomial: what the sliced tables must agree with.
    private func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test func crc32cGivesThePublishedCheckValues() {
        // RFC 3720 (iSCSI), appendix B.4, and the catalogue's check value of "123456789".
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0...31).map(UInt8.init)) == 0x46DD_794E)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    @Test func slicingByEightAgreesWithTheBitwiseDefinitionForEveryLengthAndSplit() {
        var random = SplitMix64(seed: 32)
        for length in 0..<80 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(CRC32C.checksum(bytes) == bitwise(bytes), "length \(length)")
            let split = length == 0 ? 0 : Int(random.next() % UInt64(length))
            var parts = CRC32C()
            parts.update(bytes[..<split])
            parts.update(bytes[split...])
            #expect(parts.value == bitwise(bytes), "length \(length) split at \(split)")
        }
    }

    @Test func aRecordsChecksumChangesWithEachOfItsFieldsAndWithBytesMovedBetweenThem() {
        let record = JournalRecord(version: 7, type: "login", payload: Array(#"{"firstName":"Ada"}"#.utf8), time: 1_700_000_000_000)
        var changed: [JournalRecord] = []
        for change in 0..<5 {
            var other = record
            switch change {
            case 0: other.version = 8
            case 1: other.type = "logim"
            case 2: other.payload[3] ^= 0x01
            case 3: other.time += 1
            default:
                // The same bytes, one moved from the type to the payload.
                other.type = "logi"
                other.payload = Array("n".utf8) + other.payload
            }
            changed.append(other)
        }
        #expect(changed.allSatisfy { $0.checksum != record.checksum })
        #expect(record.checksum == JournalRecord(version: 7, type: "login", payload: record.payload, time: record.time).checksum)
    }

    /// The layout every journal file's records were checked with since format 2: a change here
    /// would make every record written before it "damaged".
    @Test func aRecordsChecksumIsTheCRCOfItsFieldsWithTheirLengthsAfterItsStoresID() throws {
        let record = JournalRecord(version: 7, type: "login", payload: Array(#"{"firstName":"Ada"}"#.utf8), time: 1_700_000_000_000)
        func littleEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian) { Array($0) }
        }
        let fields = littleEndian(record.version) + littleEndian(UInt32(5)) + Array("login".utf8)
            + littleEndian(UInt32(record.payload.count)) + record.payload + littleEndian(UInt64(bitPattern: record.time))
        #expect(record.checksum == bitwise(fields))
        let room = try StoreID("room-1")
        #expect(record.checksum(in: room) == bitwise(littleEndian(UInt32(6)) + Array("room-1".utf8) + fields))
        // The same from the fields' bytes, as a reader that makes no record computes it.
        let fromBytes = Array("login".utf8).withUnsafeBytes { type in
            record.payload.withUnsafeBytes { payload in
                JournalRecord.checksum(version: 7, type: type, payload: payload, time: record.time, in: room)
            }
        }
        #expect(fromBytes == record.checksum(in: room))
    }

    @Test func aSnapshotsChecksumChangesWithItsVersionStateAndTime() {
        let snapshot = JournalSnapshot(version: 350, state: Array(#"{"counter":245}"#.utf8), time: 5)
        var digit = snapshot
        digit.state[11] = UInt8(ascii: "3")  // 245 -> 345, defect 1 of issue 32
        var version = snapshot
        version.version = 351
        var time = snapshot
        time.time = 6
        #expect([digit, version, time].allSatisfy { $0.checksum != snapshot.checksum })
    }
}
