/// Decodes any `Decodable` from a JSON text read once, by ``StrictJSONReader``'s rules: the text
/// is checked and indexed in one pass (``JSONTape``), and the value's containers read that index.
///
/// The answers follow Foundation's `JSONDecoder` (default strategies): the same `DecodingError`
/// cases at the same coding paths for a missing key (`keyNotFound`), a `null` where a value is
/// required (`valueNotFound`), a wrong type (`typeMismatch`). One deliberate difference: a number
/// that does not fit the type asked for (`300` as `Int8`, `1.5` as `Int`, `1e400` as `Double`) is
/// `dataCorrupted` at the number's own coding path, where `JSONDecoder` reports it at the root as
/// "The given data was not valid JSON.". Foundation's own types that `JSONDecoder` decodes
/// specially (`URL`, `Data` as Base64, `Decimal`, `Date`) are decoded through ``valueDecoding``,
/// which a module that imports Foundation supplies: this one does not.
///
/// ```swift
/// let login = try StrictJSONDecoder().decode(Login.self, from: Array(#"{"firstName":"Ada"}"#.utf8))
/// ```
public struct StrictJSONDecoder: Sendable {
    /// Decodes a value of `type` specially, or returns nil to let the decoder call `init(from:)`.
    public typealias ValueDecoding = @Sendable (_ type: any Decodable.Type, _ value: Value) throws -> (any Decodable)?

    /// How deeply arrays and objects may nest.
    public var maximumDepth = StrictJSONReader.defaultMaximumDepth
    /// How member names of one object are compared for duplicates; by default as a keyed container
    /// compares keys (Swift's `==`), so that no member can hide another.
    public var names = StrictJSONReader.NameRule.canonicalEquivalence
    /// What `Decoder.userInfo` holds for the values decoded.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Asked first for every value of a type other than the standard library's scalars.
    public var valueDecoding: ValueDecoding?

    /// A decoder with the default rules and no special types.
    public init() {}

    /// The value of `type` that `bytes` hold.
    ///
    /// Throws a ``StrictJSONError`` when `bytes` are not one strict JSON text (nothing decoded
    /// then), a `DecodingError` when the text does not fit `type`, or what `type`'s own
    /// `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let tape = try bytes.withUnsafeBufferPointer { (buffer) throws(StrictJSONError) in
            try JSONTape(reading: buffer, maximumDepth: maximumDepth, names: names)
        }
        let decoder = TapeDecoder(tape: tape, bytes: bytes, options: self, at: 0, path: .root)
        return try decoder.unwrap(type, at: 0, path: .root, key: nil)
    }
}

extension StrictJSONDecoder {
    /// One value of the text, as ``StrictJSONDecoder/valueDecoding`` sees it: valid only during
    /// that call.
    public struct Value {
        let decoder: TapeDecoder
        let index: Int
        let path: CodingPath

        /// Where the value is.
        public var codingPath: [any CodingKey] { path.keys }
        /// Whether the value is `null`.
        public var isNull: Bool { decoder.kind(at: index) == .null }
        /// The value's text if it is a string (escapes resolved), else nil.
        public var string: String? {
            decoder.kind(at: index) == .string ? decoder.text(at: index) : nil
        }
        /// The number's literal as written if the value is a number, else nil.
        public var numberLiteral: String? {
            decoder.kind(at: index) == .number ? decoder.literal(at: index) : nil
        }
        /// What the value is, for an error's description (`a string`, `number`, `null`, …).
        public var kindDescription: String { decoder.describeKind(at: index) }

        /// The value decoded by `type`'s own `init(from:)` (``valueDecoding`` not asked again).
        public func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoder.with(index, path) { try T(from: decoder) }
        }
    }
}
