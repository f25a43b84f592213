public import Journal

/// What the shared log's doorbell (NOTIFY on ``PostgresLogSchema/channel``) announced: each
/// append rings once with the new heads of the stores it appended to, as `store:head` pairs
/// separated by spaces (store ids hold neither `:` nor spaces); a deletion rings `store:deleted`;
/// an empty payload (too many stores for one notification) says "something changed: read the
/// heads".
public struct PostgresLogDoorbell: Sendable, Equatable {
    /// The newest head announced per store.
    public var heads: [StoreID: UInt64] = [:]
    /// Stores deleted (or otherwise changed beyond a new head): read their head rows again.
    public var changed: Set<StoreID> = []
    /// Whether a payload named no store (or could not be read): every followed store's head must
    /// be read.
    public var everything = false
    /// The rows the records doorbell carried (``records(_:heads:)``), by store, each store's in
    /// version order: to apply without reading them back.
    public var entries: [StoreID: [LogEntry]] = [:]
    /// The incarnation of each store of ``entries`` (``Journal/StoreDescription/incarnation``, its
    /// first ``incarnationTokenLength`` characters): which store the rows are of. A follower applies them only to that incarnation: a store
    /// deleted and created again under its id has versions 1, 2… again, and the rows of the old
    /// one may still be on their way when the new one is followed.
    public var incarnations: [StoreID: String] = [:]

    /// How many characters of a store's incarnation (a UUID) a records doorbell carries: 48 bits
    /// of it tell a store created again under its id from the one before (two in a row sharing
    /// them: about one in 2^48), in a string short enough to need no allocation (at most 15
    /// bytes), and 23 bytes fewer per store in every payload each replica receives.
    static let incarnationTokenLength = 13

    /// Whether `token`, an incarnation as a records doorbell names it, names `incarnation`.
    static func token(_ token: String?, names incarnation: String?) -> Bool {
        guard let token, let incarnation, !token.isEmpty else { return false }
        return incarnation.utf8.starts(with: token.utf8)
    }

    /// The longest payload the log sends (PostgreSQL takes up to 8,000 bytes).
    static let longestPayload = 7_900

    /// Creates an announcement.
    public init(
        heads: [StoreID: UInt64] = [:], changed: Set<StoreID> = [], everything: Bool = false,
        entries: [StoreID: [LogEntry]] = [:], incarnations: [StoreID: String] = [:]
    ) {
        self.heads = heads
        self.changed = changed
        self.everything = everything
        self.entries = entries
        self.incarnations = incarnations
    }

    /// The announcement of `notifications` (channel and payload), received together: the heads
    /// of ``PostgresLogSchema/channel``, the rows of ``PostgresLogSchema/recordsChannel`` — or,
    /// when its rows cannot be read, its heads (read as before). A heads payload right after a
    /// records payload with the same heads (`lastRecordsHeads`, kept by the caller across waits:
    /// a transaction's notifications are queued together, so nothing comes between the two) is
    /// the same append's second doorbell, and adds nothing. Rows of a store already rung in
    /// these notifications as another incarnation (deleted and created again in between) replace
    /// those, and the store's head row is read again (``changed``): one store's rows are never
    /// joined across incarnations.
    init(notifications: [(channel: String, payload: String)], lastRecordsHeads: inout Substring?) {
        for notification in notifications {
            if notification.channel == PostgresLogSchema.recordsChannel {
                let (headsText, incarnationsText, rowsText) = Self.splitRecords(notification.payload)
                var announced = PostgresLogDoorbell()
                announced.add(headsText)
                if !announced.everything, let incarnations = Self.incarnations(incarnationsText),
                   let rows = Self.records(rowsText, heads: announced.heads), rows.keys.allSatisfy({ incarnations[$0] != nil }) {
                    for (store, stored) in rows {
                        let incarnation = incarnations[store]
                        if self.incarnations[store] == incarnation {
                            entries[store, default: []] += stored
                        } else {
                            if self.incarnations[store] != nil { changed.insert(store) }
                            entries[store] = stored
                            self.incarnations[store] = incarnation
                        }
                    }
                } else {
                    add(headsText)
                }
                lastRecordsHeads = headsText
            } else {
                if notification.payload[...] != lastRecordsHeads { add(notification.payload[...]) }
                lastRecordsHeads = nil
            }
        }
    }

    /// The announcement of `payloads`, received together.
    init(payloads: [String]) {
        for payload in payloads {
            add(payload[...])
        }
    }

    /// Adds what `payload` announces, in one pass over its bytes: every replica parses every
    /// append's doorbell, a pair per store (per action when 1,000 stores are written), and
    /// splitting it into substrings and parsing each head through `UInt64(_:)` was a tenth of
    /// the follower's time (`docs/benchmarks.md`, 2026-11-29).
    private mutating func add(_ payload: Substring) {
        let bytes = payload.utf8
        guard !bytes.isEmpty else {
            everything = true
            return
        }
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
            if start < end { addPair(payload, start..<end) }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
    }

    /// Adds the pair `store:head` (or `store:deleted`) at `range` of `payload`.
    private mutating func addPair(_ payload: Substring, _ range: Range<String.Index>) {
        let pair = payload.utf8[range]
        guard let colon = pair.lastIndex(of: UInt8(ascii: ":")), let store = try? StoreID(payload[range.lowerBound..<colon]) else {
            everything = true
            return
        }
        if let head = Self.decimal(pair[pair.index(after: colon)...]) {
            heads[store] = max(heads[store] ?? 0, head)
        } else {
            changed.insert(store)
        }
    }

    /// The number `digits` spell in decimal (nil: empty, another character, or past `UInt64`).
    static func decimal(_ digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = sum
        }
        return value
    }

    /// The payload that announces the deletion of `store`.
    static func deletion(of store: StoreID) -> String {
        "\(store.rawValue):deleted"
    }

    /// The payload that announces `heads`, or the empty one when it would be too long.
    static func payload(_ heads: [(store: StoreID, head: UInt64)]) -> String {
        let text = heads.map { "\($0.store.rawValue):\($0.head)" }.joined(separator: " ")
        return text.utf8.count <= longestPayload ? text : ""
    }
}
