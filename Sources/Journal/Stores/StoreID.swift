/// The name of one store of a server (`docs/http-api.md`, "Stores"): 1–128 characters of
/// `A–Z a–z 0–9 . _ ~ -`, starting with a letter or a digit, compared case-sensitively.
///
/// Every route of a store lives under `/stores/{id}`; the root routes are the store ``default``,
/// which always exists. The journal keys records, snapshots and kept answers by it.
public struct StoreID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id as clients write it.
    public let rawValue: String

    /// The store the root routes (`/actions`, `/state`, …) serve; it cannot be deleted.
    public static let `default` = StoreID(checked: "default")

    /// The longest id, in characters (all of them ASCII, so bytes too).
    public static let maximumLength = 128

    /// Checks `text` against the rules; throws ``StoreIDError`` naming the rule it breaks.
    public init(_ text: some StringProtocol) throws(StoreIDError) {
        try self.init(String(text))
    }

    /// Checks `text` against the rules; throws ``StoreIDError`` naming the rule it breaks.
    ///
    /// Reads the string's own UTF-8 in place: every `/stores/{id}/…` request checks its id, and
    /// through a copy of its bytes into an array (and code generic over `StringProtocol`) that
    /// cost about 800 instructions.
    public init(_ text: String) throws(StoreIDError) {
        let violation = text.utf8.withContiguousStorageIfAvailable(Self.violation) ?? Self.violation(in: Array(text.utf8))
        if let violation { throw violation }
        rawValue = text
    }

    private init(checked text: String) {
        rawValue = text
    }

    /// The id.
    public var description: String { rawValue }

    /// Orders ids by their bytes, the order listings use.
    public static func < (lhs: StoreID, rhs: StoreID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// The first rule `bytes` break, or nil.
    private static func violation(in bytes: some Collection<UInt8>) -> StoreIDError? {
        guard let first = bytes.first else { return .empty }
        guard bytes.count <= maximumLength else { return .tooLong(bytes.count) }
        guard isLetterOrDigit(first) else { return .badStart }
        return bytes.allSatisfy(isAllowed) ? nil : .notAllowed
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "-")
    }
}

/// Why a text is not a ``StoreID``; ``rule`` is the sentence a `400` problem shows.
public enum StoreIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No characters.
    case empty
    /// More than ``StoreID/maximumLength`` bytes (the count).
    case tooLong(Int)
    /// The first character is not a letter or a digit.
    case badStart
    /// A character outside `A–Z a–z 0–9 . _ ~ -`.
    case notAllowed

    /// The rule the text breaks.
    public var rule: String {
        switch self {
        case .empty: "a store id has at least one character"
        case .tooLong(let count): "a store id has at most \(StoreID.maximumLength) characters, not \(count)"
        case .badStart: "a store id starts with a letter or a digit"
        case .notAllowed: "a store id has only the characters A-Z a-z 0-9 . _ ~ -"
        }
    }

    /// The rule.
    public var description: String { rule }
}
