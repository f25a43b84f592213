import StrictJSON

/// The strict rules of a body: exactly one JSON text as RFC 8259 defines it. `POST /actions` and
/// command bodies apply them in their one read (``decoder(userInfo:)``); the action log checks a
/// payload with ``validate(_:)``.
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

    /// A decoder that reads a body once by these rules (and decodes Foundation's types as
    /// `JSONDecoder` does); its ``StrictJSON/StrictJSONError``s become ``failure(_:)``s.
    static func decoder(userInfo: [CodingUserInfoKey: any Sendable] = [:]) -> StrictJSONDecoder {
        var decoder = StrictJSONDecoder()
        decoder.maximumDepth = maximumDepth
        decoder.names = .canonicalEquivalence
        decoder.userInfo = userInfo
        decoder.valueDecoding = FoundationValues.decode
        return decoder
    }

    /// The reader's error in the words of the body's problem (StrictJSON's one wording).
    static func failure(_ error: StrictJSONError) -> Failure {
        Failure(reason: error.reason, offset: error.reasonOffset)
    }
}
