/// Infers a JSON Schema for a `Decodable` type by running its `init(from:)` against a decoder
/// that records what it asks for: the keys, whether each is required (`decode`) or optional
/// (`decodeIfPresent`), and their types. Works for the synthesized `Decodable` of structs and
/// enums with raw values built from strings, numbers, booleans, arrays, optionals and nested
/// such types — what action payloads are; a type it cannot follow gets `{}` (any value).
enum SchemaInference {
    /// The schema of `type`, or nil when its decoding could not be followed.
    static func schema(of type: any Decodable.Type) -> JSONValue? {
        let recorder = SchemaRecorder(depth: 0)
        do {
            _ = try type.init(from: recorder)
            // A type that asked for nothing (no fields) still gets an object on the wire.
            return recorder.schema == [:] ? ["type": "object"] : recorder.schema
        } catch {
            return nil
        }
    }
}

/// Records one value's schema while a type decodes itself.
private final class SchemaRecorder: Decoder {
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let depth: Int
    /// What was asked of this value.
    var schema: JSONValue = [:]

    init(depth: Int) {
        self.depth = depth
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let object = ObjectRecorder<Key>(depth: depth)
        schema = object.schema
        object.onChange = { [unowned self] in schema = $0 }
        return KeyedDecodingContainer(object)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let array = ArrayRecorder(depth: depth)
        schema = ["type": "array"]
        array.onItem = { [unowned self] in schema = ["type": "array", "items": $0] }
        return array
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueRecorder(recorder: self)
    }

    /// The schema of a nested value of `type`, and a placeholder value of it.
    static func probe<T: Decodable>(_ type: T.Type, depth: Int) throws -> (JSONValue, T) {
        if let primitive = primitive(type) {
            guard let value = primitive.value as? T else { throw SchemaInferenceLimit() }
            return (primitive.schema, value)
        }
        guard depth < 16 else { throw SchemaInferenceLimit() }
        let nested = SchemaRecorder(depth: depth + 1)
        let value = try T(from: nested)
        return (nested.schema, value)
    }

    /// Schemas and placeholders of the scalar types.
    static func primitive(_ type: Any.Type) -> (schema: JSONValue, value: Any)? {
        switch type {
        case is String.Type: (["type": "string"], "")
        case is Bool.Type: (["type": "boolean"], false)
        case is Int.Type: (["type": "integer"], 0)
        case is Int64.Type: (["type": "integer"], Int64(0))
        case is Int32.Type: (["type": "integer"], Int32(0))
        case is UInt.Type: (["type": "integer", "minimum": 0], UInt(0))
        case is UInt64.Type: (["type": "integer", "minimum": 0], UInt64(0))
        case is Double.Type: (["type": "number"], 0.0)
        case is Float.Type: (["type": "number"], Float(0))
        default: nil
        }
    }
}

private struct SchemaInferenceLimit: Error {}

private final class ObjectRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let codingPath: [any CodingKey] = []
    let depth: Int
    var properties: [String: JSONValue] = [:]
    var required: [String] = []
    var onChange: ((JSONValue) -> Void)?

    init(depth: Int) {
        self.depth = depth
    }

    var schema: JSONValue {
        // Unknown members are ignored by synthesized decoding, so they are allowed.
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.sorted().map { .string($0) }) }
        return .object(schema)
    }

    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }

    private func record(_ key: Key, _ schema: JSONValue, required isRequired: Bool) {
        properties[key.stringValue] = schema
        if isRequired, !required.contains(key.stringValue) { required.append(key.stringValue) }
        onChange?(self.schema)
    }

    /// Keys asked about with `decodeNil`: the default `decodeIfPresent` of scalar types does
    /// that before it decodes, so those keys are optional.
    private var optionalKeys: Set<String> = []

    func decodeNil(forKey key: Key) throws -> Bool {
        optionalKeys.insert(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (schema, value) = try SchemaRecorder.probe(type, depth: depth)
        record(key, schema, required: !optionalKeys.contains(key.stringValue))
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (schema, _) = try SchemaRecorder.probe(type, depth: depth)
        record(key, schema, required: false)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ObjectRecorder<NestedKey>(depth: depth + 1)
        record(key, nested.schema, required: true)
        nested.onChange = { [unowned self] in record(key, $0, required: true) }
        return KeyedDecodingContainer(nested)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let array = ArrayRecorder(depth: depth + 1)
        record(key, ["type": "array"], required: true)
        array.onItem = { [unowned self] in record(key, ["type": "array", "items": $0], required: true) }
        return array
    }

    func superDecoder() throws -> any Decoder { SchemaRecorder(depth: depth + 1) }
    func superDecoder(forKey key: Key) throws -> any Decoder { SchemaRecorder(depth: depth + 1) }
}

/// An array seen while decoding: one element is probed for the items' schema, then it ends.
private final class ArrayRecorder: UnkeyedDecodingContainer {
    let codingPath: [any CodingKey] = []
    let depth: Int
    var onItem: ((JSONValue) -> Void)?
    private var probed = false
    var count: Int? { nil }
    var isAtEnd: Bool { probed }
    var currentIndex: Int { probed ? 1 : 0 }

    init(depth: Int) {
        self.depth = depth
    }

    func decodeNil() throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        probed = true
        let (schema, value) = try SchemaRecorder.probe(type, depth: depth)
        onItem?(schema)
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw SchemaInferenceLimit()
    }

    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw SchemaInferenceLimit() }
    func superDecoder() throws -> any Decoder { throw SchemaInferenceLimit() }
}

private struct SingleValueRecorder: SingleValueDecodingContainer {
    let codingPath: [any CodingKey] = []
    let recorder: SchemaRecorder

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (schema, value) = try SchemaRecorder.probe(type, depth: recorder.depth)
        recorder.schema = schema
        return value
    }
}
