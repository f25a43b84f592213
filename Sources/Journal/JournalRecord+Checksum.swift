/// What the journal keeps with a checksum, a record or a snapshot: its CRC-32C, computed in one
/// place for every storage that keeps them. Each covers what the record or snapshot means, field
/// by field with lengths, so that a flipped byte in any field, or bytes moved from one field to the
/// next, changes it. A record or snapshot of a store other than ``StoreID/default`` covers the
/// store's id too (``checksum(in:)``), so that a row moved to another store does not match; the
/// default store's (``checksum``) are those of format 2, so that rows written before there were
/// several stores still match.
public protocol JournalChecksummed {
    /// The checksum of it in `store`: the store's id (for any store but the default), then its
    /// fields.
    func checksum(in store: StoreID) -> UInt32
}

extension JournalChecksummed {
    /// The default store's checksum.
    public var checksum: UInt32 {
        checksum(in: .default)
    }
}

extension JournalRecord: JournalChecksummed {
    /// The checksum of the record in `store`: the store's id (for any store but the default),
    /// then the version, type, payload and time.
    public func checksum(in store: StoreID) -> UInt32 {
        var type = type
        return type.withUTF8 { typeBytes in
            payload.withUnsafeBytes { payloadBytes in
                Self.checksum(version: version, type: UnsafeRawBufferPointer(typeBytes), payload: payloadBytes, time: time, in: store)
            }
        }
    }

    /// The checksum of a record given as its fields (the type as its UTF-8 bytes), the same as
    /// ``checksum(in:)`` of that record: for a reader that checks records without making them
    /// (the journal's start reads every record once).
    public static func checksum(
        version: UInt64, type: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, time: Int64, in store: StoreID
    ) -> UInt32 {
        var crc = CRC32C.seeded(by: store)
        crc.update(littleEndian: version)
        crc.update(lengthPrefixed: type)
        crc.update(lengthPrefixed: payload)
        crc.update(littleEndian: UInt64(bitPattern: time))
        return crc.value
    }
}

extension JournalSnapshot: JournalChecksummed {
    /// The checksum of the snapshot in `store`: the store's id (for any store but the default),
    /// then the version, state and time.
    public func checksum(in store: StoreID) -> UInt32 {
        var crc = CRC32C.seeded(by: store)
        crc.update(littleEndian: version)
        crc.update(lengthPrefixed: state)
        crc.update(littleEndian: UInt64(bitPattern: time))
        return crc.value
    }
}

extension CRC32C {
    /// A checksum started with `store`'s id and its length, or empty for the default store.
    static func seeded(by store: StoreID) -> CRC32C {
        var crc = CRC32C()
        guard store != .default else { return crc }
        crc.update(lengthPrefixed: store.rawValue.utf8)
        return crc
    }

    /// Adds a field of variable length: its length (4 bytes, least significant first), then its
    /// bytes, so that bytes cannot move from one field to the next unnoticed.
    mutating func update(lengthPrefixed field: some Collection<UInt8>) {
        update(littleEndian: UInt32(truncatingIfNeeded: field.count))
        update(field)
    }
}
