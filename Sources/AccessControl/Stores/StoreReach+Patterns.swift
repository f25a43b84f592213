extension StoreReach {
    /// Why a text cannot be a store pattern; ``message`` names the rule, and shows the pattern
    /// only when the caller chooses to (configuration may hold a token in the wrong place).
    public struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The rule the pattern breaks.
        public let message: String

        /// The rule.
        public var description: String { message }
    }

    /// One parsed pattern: an exact id, or the prefix before a final `*`.
    enum Pattern: Equatable {
        case exact([UInt8])
        case prefix([UInt8])
    }

    /// The longest store id (the rule of `docs/http-api.md`, "Stores"), so the longest pattern.
    static let maximumIDLength = 128

    /// `text` as a pattern: a store id (1–128 of `A–Z a–z 0–9 . _ ~ -`, starting with a letter
    /// or a digit), or such an id's start (possibly empty) followed by one `*`.
    static func parse(_ text: some Collection<UInt8>) throws(PatternError) -> Pattern {
        var bytes = Array(text)
        let isPrefix = bytes.last == UInt8(ascii: "*")
        if isPrefix { bytes.removeLast() }
        guard isPrefix || !bytes.isEmpty else {
            throw PatternError(message: "a store pattern is empty (expected a store id, or a prefix followed by *)")
        }
        guard bytes.count <= maximumIDLength else {
            throw PatternError(message: "a store pattern is longer than a store id can be (\(maximumIDLength) characters)")
        }
        if let first = bytes.first, !isLetterOrDigit(first) {
            throw PatternError(message: "a store pattern starts with a letter or a digit, as store ids do")
        }
        guard bytes.allSatisfy(isAllowed) else {
            throw PatternError(message: "a store pattern has only the characters of store ids (A-Z a-z 0-9 . _ ~ -) and a final *")
        }
        return isPrefix ? .prefix(bytes) : .exact(bytes)
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
