/// The keyed container of an object of a ``JSONTape``: a key is found by comparing it with the
/// member names (their bytes when both are ASCII, else as Swift compares strings, as the
/// dictionary of `JSONDecoder` finds it); an object of many members gets that dictionary.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let decoder: TapeDecoder
    private let object: Int
    private let path: CodingPath
    /// The value node of each member name, for objects of more than ``hashingThreshold`` members.
    private let valueByName: [String: Int]?

    /// Objects with more members than this are looked up by hashing.
    static var hashingThreshold: Int { 12 }

    init(decoder: TapeDecoder, object: Int, path: CodingPath) {
        self.decoder = decoder
        self.object = object
        self.path = path
        if decoder.tape.nodes[object].start > Self.hashingThreshold {
            var valueByName: [String: Int] = [:]
            valueByName.reserveCapacity(decoder.tape.nodes[object].start)
            decoder.tape.forEachMember(of: object) { name, value in
                let text = decoder.text(at: name)
                if valueByName[text] == nil { valueByName[text] = value }
                return true
            }
            self.valueByName = valueByName
        } else {
            valueByName = nil
        }
    }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        var keys: [Key] = []
        decoder.tape.forEachMember(of: object) { name, _ in
            if let key = Key(stringValue: decoder.text(at: name)) { keys.append(key) }
            return true
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { valueIndex(for: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.kind(at: try value(for: key)) == .null }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(at: value(for: key), path: path, key: key) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try decoder.string(at: value(for: key), path: path, key: key) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try decoder.floatingPoint(at: value(for: key), path: path, key: key) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try decoder.floatingPoint(at: value(for: key), path: path, key: key) }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: Int128.Type, forKey key: Key) throws -> Int128 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(at: value(for: key), path: path, key: key) }
    func decode(_: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoder.integer(at: value(for: key), path: path, key: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(type, at: value(for: key), path: path, key: key)
    }

    /// Absent or `null`: nil, with one lookup (the protocol's default looks the key up three times).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = valueIndex(for: key), decoder.kind(at: index) != .null else { return nil }
        return try decoder.unwrap(type, at: index, path: path, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.keyedContainer(type, at: value(for: key), path: path.appending(key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.unkeyedContainer(at: value(for: key), path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(JSONKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(key)
    }

    /// A decoder of the value of `key`, of `null` when there is none (as `JSONDecoder` does).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        decoder.detached(at: valueIndex(for: key) ?? decoder.tape.nullIndex, path: path.appending(key))
    }

    /// The value node of `key`, or `keyNotFound`.
    private func value(for key: some CodingKey) throws -> Int {
        guard let index = valueIndex(for: key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: path.keys, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            )
        }
        return index
    }

    private func valueIndex(for key: some CodingKey) -> Int? {
        if let valueByName { return valueByName[key.stringValue] }
        return decoder.member(named: key.stringValue, in: object)
    }
}
