import Journal

/// One pass over every record of one store of a journal file (both of its tables), in version order: how many, the first and
/// last version, the first gap, and the records that do not match their checksums. What a start
/// or a store's load checks (``SQLiteJournalStorage/recover(_:)``: for a store other than
/// `default`, only its records after its snapshot).
struct RecordScan {
    /// Damaged versions listed at most; ``damagedCount`` counts them all.
    static let damagedListLimit = 100

    private(set) var count: UInt64 = 0
    private(set) var earliest: UInt64?
    private(set) var latest: UInt64?
    /// The version after which the first missing one is, if versions do not run without a gap.
    private(set) var firstGapAfter: UInt64?
    /// The first ``damagedListLimit`` records that do not match their checksums.
    private(set) var damaged: [DamagedRecord] = []
    private(set) var damagedCount = 0

    /// A record whose checksum does not match.
    struct DamagedRecord {
        let version: UInt64
        let stored: Int64?
        let computed: UInt32
    }

    /// Reads every row of `store` in `actions`, and with `log` in the log of recent records too —
    /// only those after the version `after` when it is given; with `verify` false (a format-1
    /// file) checksums are not read.
    init(_ database: SQLiteDatabase, store: StoreScope, verify: Bool, log: Bool, after: UInt64? = nil) throws(SQLiteError) {
        let columns = verify ? SQLiteJournalStorage.recordColumns : "version, type, payload, time, NULL"
        let select = try database.prepare(SQLiteJournalStorage.recordsQuery(columns: columns, log: log, after: after.map { _ in "?2" }))
        try select.bind(1, store.key)
        if let after { try select.bind(2, Int64(clamping: after)) }
        while try select.step() {
            // Checked from the columns' bytes: no record is made (a start reads every one).
            let version = try select.version(0)
            if let latest, version != latest + 1, firstGapAfter == nil {
                firstGapAfter = latest
            }
            earliest = earliest ?? version
            latest = version
            count += 1
            guard verify else { continue }
            let computed = select.withTextBytes(1) { type in
                select.withBlobBytes(2) { payload in
                    JournalRecord.checksum(version: version, type: type, payload: payload, time: select.int64(3), in: store.id)
                }
            }
            let stored = select.optionalInt64(4)
            if stored != Int64(computed) {
                damagedCount += 1
                if damaged.count < Self.damagedListLimit {
                    damaged.append(DamagedRecord(version: version, stored: stored, computed: computed))
                }
            }
        }
    }
}

extension SQLiteError {
    /// A record that does not match its checksum: refused at start, naming the store, the version
    /// and the file, and the operator's ways out.
    static func damagedRecord(_ record: RecordScan.DamagedRecord, store: StoreID, directory: String) -> SQLiteError {
        let stored = record.stored.map { hex(UInt32(truncatingIfNeeded: $0)) } ?? "none"
        return SQLiteError(
            code: damagedCode,
            message: "the record of version \(record.version) of store \(store) does not match its checksum (stored \(stored), computed \(hex(record.computed))): bytes of it changed on disk. Restore the data directory from a backup (docs/journal.md, \"Backup and restore\"), or run `remvvm-server verify \(directory)` for a report and `remvvm-server repair \(directory)` to keep every version it can still rebuild and drop the damaged ones",
            sql: nil
        )
    }
}

/// `0badf00d`: a checksum as eight hex digits.
func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
