/// The `Encoder` a value's `encode(to:)` gets, and its single-value container.
extension SortedJSONWriter: Encoder, SingleValueEncodingContainer {
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let frame = objectOfValue() ?? (index: -1, id: 0)
        return KeyedEncodingContainer(SortedJSONObject<Key>(writer: self, index: frame.index, id: frame.id, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = arrayOfValue() ?? (index: -1, id: 0)
        return SortedJSONArray(writer: self, index: frame.index, id: frame.id, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws {
        guard beginSingleValue() else { return }
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    func encode(_ value: Bool) throws {
        guard beginSingleValue() else { return }
        writeBool(value)
    }

    func encode(_ value: String) throws {
        guard beginSingleValue() else { return }
        writeString(value)
    }

    func encode(_ value: Double) throws {
        guard beginSingleValue() else { return }
        try writeFloatingPoint(value)
    }

    func encode(_ value: Float) throws {
        guard beginSingleValue() else { return }
        try writeFloatingPoint(value)
    }

    func encode(_ value: Int) throws { try encodeSigned(Int64(value)) }
    func encode(_ value: Int8) throws { try encodeSigned(Int64(value)) }
    func encode(_ value: Int16) throws { try encodeSigned(Int64(value)) }
    func encode(_ value: Int32) throws { try encodeSigned(Int64(value)) }
    func encode(_ value: Int64) throws { try encodeSigned(value) }
    func encode(_ value: UInt) throws { try encodeUnsigned(UInt64(value)) }
    func encode(_ value: UInt8) throws { try encodeUnsigned(UInt64(value)) }
    func encode(_ value: UInt16) throws { try encodeUnsigned(UInt64(value)) }
    func encode(_ value: UInt32) throws { try encodeUnsigned(UInt64(value)) }
    func encode(_ value: UInt64) throws { try encodeUnsigned(value) }

    func encode<T: Encodable>(_ value: T) throws {
        guard beginSingleValue() else { return }
        try encodeValue(value)
    }

    private func encodeSigned(_ value: Int64) throws {
        guard beginSingleValue() else { return }
        writeInteger(value)
    }

    private func encodeUnsigned(_ value: UInt64) throws {
        guard beginSingleValue() else { return }
        writeInteger(value)
    }

    func writeBool(_ value: Bool) {
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    func writeNull() {
        bytes.append(contentsOf: Self.nullBytes)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
}

/// A keyed container: an object of ``SortedJSONWriter``, the frame `index` while it is open.
struct SortedJSONObject<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: SortedJSONWriter
    let index: Int
    let id: Int
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        try writer.writeFloatingPoint(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        try writer.writeFloatingPoint(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { signed(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { signed(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { signed(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { signed(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { signed(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { unsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { unsigned(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.codingPath.append(key)
        defer { writer.codingPath.removeLast() }
        try writer.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let frame = writer.beginMember(index, id, key.stringValue) ? writer.openFrame(isObject: true) : (index: -1, id: 0)
        return KeyedEncodingContainer(SortedJSONObject<NestedKey>(writer: writer, index: frame.index, id: frame.id, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let frame = writer.beginMember(index, id, key.stringValue) ? writer.openFrame(isObject: false) : (index: -1, id: 0)
        return SortedJSONArray(writer: writer, index: frame.index, id: frame.id, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        writer.failed = true
        return writer
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.failed = true
        return writer
    }

    private func signed(_ value: Int64, _ key: Key) {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.writeInteger(value)
    }

    private func unsigned(_ value: UInt64, _ key: Key) {
        guard writer.beginMember(index, id, key.stringValue) else { return }
        writer.writeInteger(value)
    }
}

/// An unkeyed container: an array of ``SortedJSONWriter``, the frame `index` while it is open.
struct SortedJSONArray: UnkeyedEncodingContainer {
    let writer: SortedJSONWriter
    let index: Int
    let id: Int
    var codingPath: [any CodingKey]
    private(set) var count = 0

    init(writer: SortedJSONWriter, index: Int, id: Int, codingPath: [any CodingKey]) {
        self.writer = writer
        self.index = index
        self.id = id
        self.codingPath = codingPath
        // A container asked for again continues the array.
        count = index >= 0 && index < writer.frames.count ? writer.frames[index].count : 0
    }

    mutating func encodeNil() throws {
        guard begin() else { return }
        writer.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        guard begin() else { return }
        writer.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        guard begin() else { return }
        writer.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        guard begin() else { return }
        try writer.writeFloatingPoint(value)
    }

    mutating func encode(_ value: Float) throws {
        guard begin() else { return }
        try writer.writeFloatingPoint(value)
    }

    mutating func encode(_ value: Int) throws { signed(Int64(value)) }
    mutating func encode(_ value: Int8) throws { signed(Int64(value)) }
    mutating func encode(_ value: Int16) throws { signed(Int64(value)) }
    mutating func encode(_ value: Int32) throws { signed(Int64(value)) }
    mutating func encode(_ value: Int64) throws { signed(value) }
    mutating func encode(_ value: UInt) throws { unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { unsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { unsigned(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard begin() else { return }
        try writer.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let frame = begin() ? writer.openFrame(isObject: true) : (index: -1, id: 0)
        return KeyedEncodingContainer(SortedJSONObject<NestedKey>(writer: writer, index: frame.index, id: frame.id, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = begin() ? writer.openFrame(isObject: false) : (index: -1, id: 0)
        return SortedJSONArray(writer: writer, index: frame.index, id: frame.id, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        writer.failed = true
        return writer
    }

    private mutating func begin() -> Bool {
        guard writer.beginElement(index, id) else { return false }
        count += 1
        return true
    }

    private mutating func signed(_ value: Int64) {
        guard begin() else { return }
        writer.writeInteger(value)
    }

    private mutating func unsigned(_ value: UInt64) {
        guard begin() else { return }
        writer.writeInteger(value)
    }
}
