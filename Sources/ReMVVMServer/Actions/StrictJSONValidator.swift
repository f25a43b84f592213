import StrictJSON

/// Checks that a body is exactly one JSON text as RFC 8259 defines it, before it is decoded.
///
/// Foundation's parser is lenient where a client's mistake should be an error: it takes trailing
/// commas, guesses UTF-16 and UTF-32, and keeps the first of two equal keys. The project's one
/// strict reader (``StrictJSON/StrictJSONReader``) rejects all of that: the grammar exactly (no
/// trailing commas, no leading zeros, no comments, no control characters or lone surrogates in
/// strings, nothing after the value), duplicate member names in an object (compared as Swift
/// compares them, as the decoder will: "\u00e9" and "e\u0301" would become one key of a
/// dictionary, one of the two values lost), and nesting deeper than ``maximumDepth``. This type
/// words its errors for the `400` problems of `POST /actions`, commands and the action log.
struct StrictJSONValidator {
    /// Why a body is not strict JSON, with the byte offset where that was found.
    struct Failure: Error, Equatable, CustomStringConvertible {
        let reason: String
        let offset: Int

        var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deeply arrays and objects may nest; deeper bodies are refused rather than parsed.
    static let maximumDepth = StrictJSONReader.defaultMaximumDepth

    /// Throws the first violation found in `bytes`.
    static func validate(_ bytes: [UInt8]) throws(Failure) {
        do {
            try bytes.withUnsafeBufferPointer { (buffer) throws(StrictJSONError) in
                try StrictJSONReader.validate(buffer, maximumDepth: maximumDepth, names: .canonicalEquivalence)
            }
        } catch {
            throw failure(error)
        }
    }

    /// JSON's whitespace: space, tab, line feed, carriage return (RFC 8259 §2).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        StrictJSONReader.isWhitespace(byte)
    }

    /// The reader's error in the words of the body's problem.
    private static func failure(_ error: StrictJSONError) -> Failure {
        var offset = error.offset
        let reason: String
        switch error.kind {
        case .endOfTextWhereValueExpected: reason = "the JSON text ends where a value was expected"
        case .unexpectedByteWhereValueExpected(let byte): reason = "unexpected \(describe(byte)) where a value was expected"
        case .unexpectedByteAfterValue(let byte): reason = "unexpected \(describe(byte)) after the JSON value"
        case .expectedMemberName(let afterComma):
            reason = afterComma ? "trailing comma or missing member name" : "expected a member name in quotes"
        case .expectedColon: reason = "expected ':' after a member name"
        case .expectedCommaOrEnd(let closing):
            reason = "expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(closing == UInt8(ascii: "}") ? "an object" : "an array")"
        case .trailingCommaInArray: reason = "trailing comma in an array"
        case .controlCharacterInString(let byte): reason = "control character \(describe(byte)) in a string (escape it)"
        case .unterminatedString(let quote):
            reason = "unterminated string"
            offset = quote
        case .unterminatedEscape: reason = "unterminated escape"
        case .invalidEscape(let byte): reason = "invalid escape \\\(describe(byte))"
        case .badUnicodeEscape: reason = "\\u must be followed by four hex digits"
        case .loneHighSurrogate: reason = "a \\u escape of a high surrogate must be followed by one of a low surrogate"
        case .loneLowSurrogate: reason = "a \\u escape of a low surrogate without a high surrogate before it"
        case .invalidUTF8: reason = "a string that is not valid UTF-8"
        case .leadingZero: reason = "leading zero in a number"
        case .missingIntegerDigit: reason = "a number needs digits"
        case .missingFractionDigit: reason = "digits expected after the decimal point"
        case .missingExponentDigit: reason = "digits expected in the exponent"
        case .tooDeep(let limit): reason = "arrays and objects nest deeper than \(limit) levels"
        case .duplicateName(let name, let earlier):
            reason = earlier.utf8.elementsEqual(name.utf8)
                ? "duplicate member name \"\(name)\""
                : "duplicate member name \"\(name)\" (the same name as \"\(earlier)\" once Unicode-normalized: decoding would keep only one of them)"
        }
        return Failure(reason: reason, offset: offset)
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
