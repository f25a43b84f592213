/// The journal's checksums, computed in one place for every storage that keeps them (the SQLite
/// journal today; the journal of several stores next, which adds the store's key). Each covers
/// what the record or snapshot means, field by field with lengths, so that a flipped byte in any
/// field, or bytes moved from one field to the next, changes it.
extension JournalRecord {
    /// The CRC-32C of the version, type, payload and time.
    public var checksum: UInt32 {
        var crc = CRC32C()
        crc.update(littleEndian: version)
        crc.update(littleEndian: UInt32(truncatingIfNeeded: type.utf8.count))
        crc.update(type.utf8)
        crc.update(littleEndian: UInt32(truncatingIfNeeded: payload.count))
        crc.update(payload)
        crc.update(littleEndian: UInt64(bitPattern: time))
        return crc.value
    }
}

extension JournalSnapshot {
    /// The CRC-32C of the version, state and time.
    public var checksum: UInt32 {
        var crc = CRC32C()
        crc.update(littleEndian: version)
        crc.update(littleEndian: UInt32(truncatingIfNeeded: state.count))
        crc.update(state)
        crc.update(littleEndian: UInt64(bitPattern: time))
        return crc.value
    }
}
