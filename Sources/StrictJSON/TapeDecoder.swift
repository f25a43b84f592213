/// The `Decoder` of ``StrictJSONDecoder``: one value of a ``JSONTape`` at a time (the decoder moves
/// to a nested value and back while a nested type decodes itself, as `JSONDecoder`'s does), and
/// its own single-value container.
final class TapeDecoder {
    let tape: JSONTape
    let bytes: [UInt8]
    let options: StrictJSONDecoder
    /// The node of the value being decoded.
    private(set) var node: Int
    private(set) var path: CodingPath
    private lazy var anyUserInfo: [CodingUserInfoKey: Any] = options.userInfo

    init(tape: JSONTape, bytes: [UInt8], options: StrictJSONDecoder, at node: Int, path: CodingPath) {
        self.tape = tape
        self.bytes = bytes
        self.options = options
        self.node = node
        self.path = path
    }

    /// Runs `body` with the decoder on the value at `index`, `path`; back where it was after.
    func with<T>(_ index: Int, _ path: CodingPath, _ body: () throws -> T) rethrows -> T {
        let (savedNode, savedPath) = (node, self.path)
        node = index
        self.path = path
        defer {
            node = savedNode
            self.path = savedPath
        }
        return try body()
    }

    /// The value at `index` decoded as `type`: ``StrictJSONDecoder/valueDecoding`` first, then
    /// `type`'s own `init(from:)` with the decoder on that value.
    func unwrap<T: Decodable>(_ type: T.Type, at index: Int, path: CodingPath, key: (any CodingKey)?) throws -> T {
        let valuePath = path.appending(key)
        if let special = options.valueDecoding,
           let value = try special(type, StrictJSONDecoder.Value(decoder: self, index: index, path: valuePath)) {
            return try Self.typed(value) ?? with(index, valuePath) { try T(from: self) }
        }
        return try with(index, valuePath) { try T(from: self) }
    }

    /// `value` as a `T` (apart, so that the common path of ``unwrap(_:at:path:key:)`` needs no
    /// `Optional<T>`).
    private static func typed<T>(_ value: any Decodable) -> T? {
        value as? T
    }

    /// A decoder of its own for the value at `index` (`superDecoder()`: it may outlive the call).
    func detached(at index: Int, path: CodingPath) -> TapeDecoder {
        TapeDecoder(tape: tape, bytes: bytes, options: options, at: index, path: path)
    }

    /// The keyed container of the object at `index`.
    func keyedContainer<Key: CodingKey>(_: Key.Type, at index: Int, path: CodingPath) throws -> KeyedDecodingContainer<Key> {
        switch kind(at: index) {
        case .object:
            return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: index, path: path))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                .init(codingPath: path.keys, debugDescription: "Cannot get keyed decoding container -- found null value instead")
            )
        default:
            throw typeMismatch([String: Any].self, at: index, path: path, key: nil)
        }
    }

    /// The unkeyed container of the array at `index`.
    func unkeyedContainer(at index: Int, path: CodingPath) throws -> any UnkeyedDecodingContainer {
        switch kind(at: index) {
        case .array:
            return TapeUnkeyedContainer(decoder: self, array: index, path: path)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                .init(codingPath: path.keys, debugDescription: "Cannot get unkeyed decoding container -- found null value instead")
            )
        default:
            throw typeMismatch([Any].self, at: index, path: path, key: nil)
        }
    }
}

extension TapeDecoder: Decoder {
    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { anyUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(type, at: node, path: path)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: node, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }
}

extension TapeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { kind(at: node) == .null }
    func decode(_: Bool.Type) throws -> Bool { try bool(at: node, path: path, key: nil) }
    func decode(_: String.Type) throws -> String { try string(at: node, path: path, key: nil) }
    func decode(_: Double.Type) throws -> Double { try floatingPoint(at: node, path: path, key: nil) }
    func decode(_: Float.Type) throws -> Float { try floatingPoint(at: node, path: path, key: nil) }
    func decode(_: Int.Type) throws -> Int { try integer(at: node, path: path, key: nil) }
    func decode(_: Int8.Type) throws -> Int8 { try integer(at: node, path: path, key: nil) }
    func decode(_: Int16.Type) throws -> Int16 { try integer(at: node, path: path, key: nil) }
    func decode(_: Int32.Type) throws -> Int32 { try integer(at: node, path: path, key: nil) }
    func decode(_: Int64.Type) throws -> Int64 { try integer(at: node, path: path, key: nil) }
    func decode(_: Int128.Type) throws -> Int128 { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt.Type) throws -> UInt { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt8.Type) throws -> UInt8 { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt16.Type) throws -> UInt16 { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt32.Type) throws -> UInt32 { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt64.Type) throws -> UInt64 { try integer(at: node, path: path, key: nil) }
    func decode(_: UInt128.Type) throws -> UInt128 { try integer(at: node, path: path, key: nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(type, at: node, path: path, key: nil) }
}
