/// The stores a credential may reach: every store (no limit configured), or a list of exact
/// store ids and prefixes (`room-*`). An empty list reaches no store.
///
/// Checked on every request to a store, so a check costs no allocation: a token without a limit
/// is one enum case; a limited one looks the id up in a set of exact ids (O(1)) and then walks
/// its prefixes (O(prefixes)). Ids compare by their bytes, case-sensitively, as store ids do.
public struct StoreReach: Sendable, Equatable, CustomStringConvertible {
    private enum Limit: Sendable, Equatable {
        case none
        case listed(exact: Set<String>, prefixes: [[UInt8]])
    }

    private let limit: Limit

    /// Every store: what a credential without a store list reaches.
    public static let everyStore = StoreReach(limit: .none)

    /// No store at all: what an empty store list reaches.
    public static let noStore = StoreReach(limit: .listed(exact: [], prefixes: []))

    private init(limit: Limit) {
        self.limit = limit
    }

    /// The stores `patterns` name: each an exact store id (`lobby`) or a prefix followed by `*`
    /// (`room-*`; `*` alone is every store). Throws ``StoreReach/PatternError`` for a pattern
    /// that cannot name a store.
    public init(patterns: some Sequence<some StringProtocol>) throws(PatternError) {
        var exact: Set<String> = []
        var prefixes: [[UInt8]] = []
        for pattern in patterns {
            switch try Self.parse(pattern.utf8) {
            case .exact(let id): exact.insert(String(decoding: id, as: UTF8.self))
            case .prefix(let prefix) where prefix.isEmpty: self = .everyStore; return
            case .prefix(let prefix): prefixes.append(prefix)
            }
        }
        limit = .listed(exact: exact, prefixes: prefixes)
    }

    /// Whether no store list limits the credential.
    public var isUnlimited: Bool { limit == .none }

    /// Whether the store `storeID` is within reach.
    public func reaches(storeID: String) -> Bool {
        guard case .listed(let exact, let prefixes) = limit else { return true }
        let bytes = storeID.utf8
        // Store ids are ASCII; Swift's `==` on strings is canonical equivalence, under which a
        // non-ASCII text can equal an ASCII one (the Kelvin sign U+212A is "K").
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
        if exact.contains(storeID) { return true }
        return prefixes.contains { prefix in
            prefix.count <= bytes.count && bytes.prefix(prefix.count).elementsEqual(prefix)
        }
    }

    /// The list as configured, exact ids first, e.g. `lobby+room-*`; `*` for every store, empty
    /// for no store.
    public var description: String {
        guard case .listed(let exact, let prefixes) = limit else { return "*" }
        let names = exact.sorted()
            + prefixes.map { String(decoding: $0, as: UTF8.self) + "*" }
        return names.joined(separator: "+")
    }
}
