/// A JSON pointer (RFC 6901): the path of a value inside a document, as reference tokens.
///
/// Written as text, each token follows a `/`, with `~` escaped as `~0` and `/` as `~1`: the
/// member `a/b` of the member `m~n` is `/m~0n/a~1b`. The empty pointer `""` is the whole
/// document; `"/"` is the member whose name is the empty string.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The reference tokens, unescaped: member names, or array indexes in decimal.
    public var tokens: [String]

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// A pointer of `tokens` (unescaped).
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the text form: empty, or `/` followed by tokens separated by `/`, where `~` must be
    /// followed by `0` or `1`.
    public init(_ text: String) throws(JSONPatchError) {
        guard !text.isEmpty else {
            self = .root
            return
        }
        guard text.utf8.first == UInt8(ascii: "/") else {
            throw JSONPatchError(code: .malformedPointer, message: "a JSON pointer must be empty or start with '/': \"\(text)\"")
        }
        var tokens: [String] = []
        for escaped in text.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            var token: [UInt8] = []
            var bytes = escaped.makeIterator()
            while let byte = bytes.next() {
                guard byte == UInt8(ascii: "~") else {
                    token.append(byte)
                    continue
                }
                switch bytes.next() {
                case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
                default: throw JSONPatchError(code: .malformedPointer, message: "'~' must be followed by 0 or 1 in a JSON pointer: \"\(text)\"")
                }
            }
            // The bytes came from a String and only ASCII was replaced: still valid UTF-8.
            tokens.append(String(decoding: token, as: UTF8.self))
        }
        self.tokens = tokens
    }

    /// Whether this is the pointer to the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The text form, tokens escaped.
    public var description: String {
        var text = ""
        for token in tokens {
            text += "/"
            for character in token.unicodeScalars {
                switch character {
                case "~": text += "~0"
                case "/": text += "~1"
                default: text.unicodeScalars.append(character)
                }
            }
        }
        return text
    }

    /// This pointer with `token` appended.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// Whether `other` points inside the value this pointer names (not at it).
    public func isProperPrefix(of other: JSONPointer) -> Bool {
        tokens.count < other.tokens.count
            && zip(tokens, other.tokens).allSatisfy { $0.hasSameCodePoints(as: $1) }
    }

    /// Equal tokens, compared by code points.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.tokens.count == rhs.tokens.count
            && zip(lhs.tokens, rhs.tokens).allSatisfy { $0.hasSameCodePoints(as: $1) }
    }

    /// Hashes the tokens' UTF-8 bytes, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for token in tokens {
            hasher.combine(token.utf8.count)
            for byte in token.utf8 { hasher.combine(byte) }
        }
    }
}
