/// A decoder that reads an empty JSON object, so an action without `payload` decodes like `payload: {}`:
/// `{"type":"increase"}` works, and `{"type":"login"}` fails naming `payload.firstName`.
struct EmptyPayloadDecoder: Decoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(EmptyKeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            .init(codingPath: codingPath, debugDescription: "payload is missing; expected an array")
        )
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.valueNotFound(
            Any.self,
            .init(codingPath: codingPath, debugDescription: "payload is missing")
        )
    }
}

/// The keyed container of an empty object: no key is present.
private struct EmptyKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let codingPath: [any CodingKey]
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { false }

    func decodeNil(forKey key: Key) throws -> Bool { true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        throw DecodingError.keyNotFound(
            key,
            .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue).")
        )
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        _ = try decode(Int.self, forKey: key)
        preconditionFailure("decode(_:forKey:) always throws for an empty object")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        _ = try decode(Int.self, forKey: key)
        preconditionFailure("decode(_:forKey:) always throws for an empty object")
    }

    func superDecoder() throws -> any Decoder {
        EmptyPayloadDecoder(codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        EmptyPayloadDecoder(codingPath: codingPath + [key])
    }
}
