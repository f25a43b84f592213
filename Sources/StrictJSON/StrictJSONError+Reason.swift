/// The one wording of the reader's errors, for every reader of the project that shows them (the
/// `400` problems of `POST /actions`, JSON Patch errors): what rule the text breaks, and the byte
/// to point at.
extension StrictJSONError {
    /// What rule the text breaks, as a phrase (`leading zero in a number`), without the offset.
    public var reason: String {
        switch kind {
        case .endOfTextWhereValueExpected: "the JSON text ends where a value was expected"
        case .unexpectedByteWhereValueExpected(let byte): "unexpected \(Self.describe(byte)) where a value was expected"
        case .unexpectedByteAfterValue(let byte): "unexpected \(Self.describe(byte)) after the JSON value"
        case .expectedMemberName(let afterComma): afterComma ? "trailing comma or missing member name" : "expected a member name in quotes"
        case .expectedColon: "expected ':' after a member name"
        case .expectedCommaOrEnd(let closing):
            "expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(closing == UInt8(ascii: "}") ? "an object" : "an array")"
        case .trailingCommaInArray: "trailing comma in an array"
        case .controlCharacterInString(let byte): "control character \(Self.describe(byte)) in a string (escape it)"
        case .unterminatedString: "unterminated string"
        case .unterminatedEscape: "unterminated escape"
        case .invalidEscape(let byte): "invalid escape \\\(Self.describe(byte))"
        case .badUnicodeEscape: "\\u must be followed by four hex digits"
        case .loneHighSurrogate: "a \\u escape of a high surrogate must be followed by one of a low surrogate"
        case .loneLowSurrogate: "a \\u escape of a low surrogate without a high surrogate before it"
        case .invalidUTF8: "a string that is not valid UTF-8"
        case .leadingZero: "leading zero in a number"
        case .missingIntegerDigit: "a number needs digits"
        case .missingFractionDigit: "digits expected after the decimal point"
        case .missingExponentDigit: "digits expected in the exponent"
        case .tooDeep(let limit): "arrays and objects nest deeper than \(limit) levels"
        case .duplicateName(let name, let earlier):
            earlier.utf8.elementsEqual(name.utf8)
                ? "duplicate member name \"\(name)\""
                : "duplicate member name \"\(name)\" (the same name as \"\(earlier)\" once Unicode-normalized: decoding would keep only one of them)"
        }
    }

    /// The byte to point at: the opening quote of a string the text ends inside, else ``offset``.
    public var reasonOffset: Int {
        if case .unterminatedString(let quote) = kind { return quote }
        return offset
    }

    /// ``reason`` `at byte` ``reasonOffset``.
    public var message: String {
        "\(reason) at byte \(reasonOffset)"
    }

    /// A printable ASCII byte in quotes, any other as `byte 0xNN`.
    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
