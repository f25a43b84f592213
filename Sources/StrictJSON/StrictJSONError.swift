/// Why bytes are not one strict JSON text, and where: a ``Kind`` each reader of the project turns
/// into its own words (the `POST /actions` problem, a JSON Patch error, a JWT rejection).
public struct StrictJSONError: Error, Sendable, Equatable {
    /// What rule the text breaks.
    public enum Kind: Sendable, Equatable {
        /// The text ends where a value must come.
        case endOfTextWhereValueExpected
        /// A byte that starts no value (also a misspelled `true`, `false` or `null`).
        case unexpectedByteWhereValueExpected(UInt8)
        /// Something other than whitespace after the document's value.
        case unexpectedByteAfterValue(UInt8)
        /// An object needs a member name in quotes here; `afterComma` tells a trailing comma.
        case expectedMemberName(afterComma: Bool)
        /// A member name not followed by `:`.
        case expectedColon
        /// After an element, neither `,` nor the container's `closing` byte.
        case expectedCommaOrEnd(closing: UInt8)
        /// `]` right after a comma.
        case trailingCommaInArray
        /// A byte below 0x20 inside a string.
        case controlCharacterInString(UInt8)
        /// The text ends inside the string opened at `openingQuote`.
        case unterminatedString(openingQuote: Int)
        /// The text ends right after a backslash.
        case unterminatedEscape
        /// A backslash followed by a byte that starts no escape.
        case invalidEscape(UInt8)
        /// `\u` not followed by four hex digits (the offset is the first byte that is not one,
        /// or the end of the text).
        case badUnicodeEscape
        /// A `\u` high surrogate escape not followed by a low surrogate escape.
        case loneHighSurrogate
        /// A `\u` low surrogate escape without a high one before it.
        case loneLowSurrogate
        /// A string whose bytes are not UTF-8 (the offset is the string's first byte).
        case invalidUTF8
        /// A number with a zero before other digits.
        case leadingZero
        /// A number without digits (a `-` alone).
        case missingIntegerDigit
        /// A number without digits after its decimal point.
        case missingFractionDigit
        /// A number without digits in its exponent.
        case missingExponentDigit
        /// Arrays and objects nested deeper than `limit` levels.
        case tooDeep(limit: Int)
        /// A member name that an earlier member of the same object already has, by the reader's
        /// ``StrictJSONReader/NameRule``; both as read (escapes resolved).
        case duplicateName(String, earlier: String)
    }

    /// What rule the text breaks.
    public let kind: Kind
    /// The byte offset in the text where it was found.
    public let offset: Int

    /// An error of `kind` at `offset`.
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }
}
