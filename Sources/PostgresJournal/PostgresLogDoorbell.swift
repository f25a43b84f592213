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

    /// The longest payload the log sends (PostgreSQL takes up to 8,000 bytes).
    static let longestPayload = 7_900

    /// Creates an announcement.
    public init(heads: [StoreID: UInt64] = [:], changed: Set<StoreID> = [], everything: Bool = false) {
        self.heads = heads
        self.changed = changed
        self.everything = everything
    }

    /// The announcement of `payloads`, received together.
    init(payloads: [String]) {
        for payload in payloads {
            add(payload)
        }
    }

    /// Adds what `payload` announces.
    private mutating func add(_ payload: String) {
        guard !payload.isEmpty else {
            everything = true
            return
        }
        for pair in payload.split(separator: " ") {
            guard let colon = pair.lastIndex(of: ":"), let store = try? StoreID(pair[..<colon]) else {
                everything = true
                continue
            }
            if let head = UInt64(pair[pair.index(after: colon)...]) {
                heads[store] = max(heads[store] ?? 0, head)
            } else {
                changed.insert(store)
            }
        }
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
