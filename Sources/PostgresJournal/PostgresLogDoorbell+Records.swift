import Journal

/// The doorbell that carries an append's rows (NOTIFY on ``PostgresLogSchema/recordsChannel``,
/// rung by ``PostgresLogSchema/appendFunction`` just before the heads when the whole fits in one
/// notification): a follower offers the rows to its stores and applies them without reading them
/// back — with 1,000 stores over three replicas, the followers' reads were about a third of
/// PostgreSQL's CPU and a wake-up per read on every replica (`docs/benchmarks.md`, 2026-11-30
/// late evening).
///
/// The payload: the append's heads as on ``PostgresLogSchema/channel`` (`store:head` pairs), a
/// line feed, each store's incarnation (`store:incarnation` pairs separated by spaces: the rows
/// are that store's, ``PostgresLogDoorbell/incarnations``), a line feed, then per row `store
/// ordinal time typeLength payloadLength keyLength` (`-` for no
/// key), a line feed, and the type, the payload and the key, each exactly as long as said, in
/// characters (code points, which survive a conversion between the database's and the
/// connection's encodings). A store's rows have the ordinals 1…n in order; its row of ordinal `o`
/// is version `head - n + o`. Store ids hold no spaces; the lengths make every other text safe.
/// The appender writes the rows (``appendRow(to:store:ordinal:type:payload:time:key:)``), PostgreSQL only
/// puts the heads in front: building the text in SQL cost the appends a quarter more.
extension PostgresLogDoorbell {
    /// The heads' part of a records doorbell's `payload`, its incarnations' line and its rows'
    /// part (empty when the payload lacks their line feeds).
    static func splitRecords(_ payload: String) -> (heads: Substring, incarnations: Substring, rows: Substring) {
        let bytes = payload.utf8
        guard let feed = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return (payload[...], "", "") }
        let rest = bytes.index(after: feed)
        guard let second = bytes[rest...].firstIndex(of: UInt8(ascii: "\n")) else { return (payload[..<feed], payload[rest...], "") }
        return (payload[..<feed], payload[rest..<second], payload[bytes.index(after: second)...])
    }

    /// The incarnations' line of a records doorbell (`store:incarnation` pairs separated by
    /// spaces) by store; nil when it is not such a line (a doorbell of an older build, whose
    /// second line is a row's: its rows are then not applied, its heads read as before).
    /// Read by bytes, as the heads are (a `Substring`'s characters cost a grapheme break each).
    static func incarnations(_ line: Substring) -> [StoreID: String]? {
        var found: [StoreID: String] = [:]
        let bytes = line.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
            if start < end {
                guard let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")), let store = try? StoreID(line[start..<colon]) else {
                    return nil
                }
                let incarnation = bytes.index(after: colon)
                guard incarnation < end else { return nil }
                found[store] = String(line[incarnation..<end])
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return found.isEmpty ? nil : found
    }

    /// The rows of a records doorbell's rows part by store, each store's in version order, its
    /// versions from its head in `heads` (a store without one is left out: the append stored
    /// none of its rows); nil when `rows` is not such a text (then the heads are read as before).
    static func records(_ rows: Substring, heads: [StoreID: UInt64]) -> [StoreID: [LogEntry]]? {
        var rows = rows  // read in place: a native string's bytes are not copied
        return rows.withUTF8 { bytes in
            var reader = RecordsReader(bytes: bytes)
            return reader.readAll(heads: heads)
        }
    }

    /// One row of a records doorbell, as the appender writes it (appended to `text`).
    static func appendRow(
        to text: inout [UInt8], store: StoreID, ordinal: UInt64, type: String, payload: [UInt8], time: Int64, key: String?
    ) {
        text.append(contentsOf: "\(store.rawValue) \(ordinal) \(time) \(characterCount(type.utf8)) \(characterCount(payload)) ".utf8)
        if let key { text.append(contentsOf: String(characterCount(key.utf8)).utf8) } else { text.append(UInt8(ascii: "-")) }
        text.append(UInt8(ascii: "\n"))
        text.append(contentsOf: type.utf8)
        text.append(contentsOf: payload)
        if let key { text.append(contentsOf: key.utf8) }
    }

    /// The code points of UTF-8 `bytes` (its bytes that are not continuation bytes).
    static func characterCount(_ bytes: some Sequence<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }
}

/// Reads the text of a records doorbell over its UTF-8 bytes, in one pass.
private struct RecordsReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func readAll(heads: [StoreID: UInt64]) -> [StoreID: [LogEntry]]? {
        var byStore: [StoreID: [LogEntry]] = [:]
        while index < bytes.count {
            // The row's version is its ordinal until the store's count is known.
            guard let (store, entry) = readRow() else { return nil }
            guard entry.record.version == UInt64((byStore[store]?.count ?? 0) + 1) else { return nil }
            byStore[store, default: []].append(entry)
        }
        var found: [StoreID: [LogEntry]] = [:]
        found.reserveCapacity(byStore.count)
        for (store, entries) in byStore {
            guard let head = heads[store] else { continue }
            guard head >= UInt64(entries.count) else { return nil }
            let base = head - UInt64(entries.count)
            found[store] = entries.map { entry in
                var entry = entry
                entry.record.version += base
                return entry
            }
        }
        return found
    }

    /// One row: its head line, then its texts.
    private mutating func readRow() -> (StoreID, LogEntry)? {
        guard let storeBytes = field(endingWith: UInt8(ascii: " ")),
              let store = try? StoreID(String(decoding: storeBytes, as: UTF8.self)),
              let ordinal = number(endingWith: UInt8(ascii: " ")), ordinal > 0,
              let time = signedNumber(endingWith: UInt8(ascii: " ")),
              let typeLength = number(endingWith: UInt8(ascii: " ")),
              let payloadLength = number(endingWith: UInt8(ascii: " "))
        else { return nil }
        let keyLength: UInt64?
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "\n") {
            keyLength = nil
            index += 2
        } else {
            guard let length = number(endingWith: UInt8(ascii: "\n")) else { return nil }
            keyLength = length
        }
        guard let type = characters(typeLength), let payload = characters(payloadLength) else { return nil }
        var key: String?
        if let keyLength {
            guard let keyBytes = characters(keyLength) else { return nil }
            key = String(decoding: keyBytes, as: UTF8.self)
        }
        let record = JournalRecord(
            version: ordinal, type: String(decoding: type, as: UTF8.self), payload: Array(payload), time: time
        )
        return (store, LogEntry(record: record, idempotencyKey: key))
    }

    /// The bytes up to `terminator` (not empty), stepping past it.
    private mutating func field(endingWith terminator: UInt8) -> Slice<UnsafeBufferPointer<UInt8>>? {
        let start = index
        while index < bytes.count, bytes[index] != terminator { index += 1 }
        guard index < bytes.count, index > start else { return nil }
        defer { index += 1 }
        return bytes[start..<index]
    }

    /// A decimal number up to `terminator` (digits only, within `UInt64`).
    private mutating func number(endingWith terminator: UInt8) -> UInt64? {
        field(endingWith: terminator).flatMap(PostgresLogDoorbell.decimal)
    }

    /// A decimal number with an optional `-` up to `terminator`, within `Int64`.
    private mutating func signedNumber(endingWith terminator: UInt8) -> Int64? {
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let magnitude = number(endingWith: terminator) else { return nil }
        if negative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The next `count` characters (a character: a lead byte and its continuation bytes).
    private mutating func characters(_ count: UInt64) -> Slice<UnsafeBufferPointer<UInt8>>? {
        let start = index
        var remaining = count
        while remaining > 0 {
            guard index < bytes.count else { return nil }
            index += 1
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            remaining -= 1
        }
        return bytes[start..<index]
    }
}
