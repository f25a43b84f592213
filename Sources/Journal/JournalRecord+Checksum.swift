/// The journal's checksums, computed in one place for every storage that keeps them. Each covers
/// what the record or snapshot means, field by field with lengths, so that a flipped byte in any
/// field, or bytes moved from one field to the next, changes it. A record or snapshot of a store
/// other than ``StoreID/default`` covers the store's id too (``checksum(in:)``), so that a row
/// moved to another store does not match; the default store's are those of format 2, so that
/// rows written before there were several stores still match.
extension JournalRecord {
    /// The CRC-32C of the version, type, payload and time (the default store's checksum).
    public var checksum: UInt32 {
        checksum(in: .default)
    }

    /// The checksum of the record in `store`: the store's id (for any store but the default),
    /// then the version, type, payload and time.
    public func checksum(in store: StoreID) -> UInt32 {
        var crc = CRC32C.seeded(by: store)
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
    /// The CRC-32C of the version, state and time (the default store's checksum).
    public var checksum: UInt32 {
        checksum(in: .default)
    }

    /// The checksum of the snapshot in `store`: the store's id (for any store but the default),
    /// then the version, state and time.
    public func checksum(in store: StoreID) -> UInt32 {
        var crc = CRC32C.seeded(by: store)
        crc.update(littleEndian: version)
        crc.update(littleEndian: UInt32(truncatingIfNeeded: state.count))
        crc.update(state)
        crc.update(littleEndian: UInt64(bitPattern: time))
        return crc.value
    }
}

extension CRC32C {
    /// A checksum started with `store`'s id and its length, or empty for the default store.
    static func seeded(by store: StoreID) -> CRC32C {
        var crc = CRC32C()
        guard store != .default else { return crc }
        crc.update(littleEndian: UInt32(truncatingIfNeeded: store.rawValue.utf8.count))
        crc.update(store.rawValue.utf8)
        return crc
    }
}
