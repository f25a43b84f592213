/// The unkeyed container of an array of a ``JSONTape``: its elements in order, each at the path
/// of its position.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    private let decoder: TapeDecoder
    private let path: CodingPath
    /// The node of the element ``currentIndex``.
    private var element: Int

    let count: Int?
    private(set) var currentIndex = 0

    init(decoder: TapeDecoder, array: Int, path: CodingPath) {
        self.decoder = decoder
        self.path = path
        element = array + 1
        count = decoder.tape.nodes[array].start
    }

    var codingPath: [any CodingKey] { path.keys }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    mutating func decodeNil() throws -> Bool {
        guard decoder.kind(at: try next(Never.self)) == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try scalar { try $0.bool(at: $1, path: $2, key: $3) } }
    mutating func decode(_: String.Type) throws -> String { try scalar { try $0.string(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Double.Type) throws -> Double { try scalar { try $0.floatingPoint(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Float.Type) throws -> Float { try scalar { try $0.floatingPoint(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int.Type) throws -> Int { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int8.Type) throws -> Int8 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int16.Type) throws -> Int16 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int32.Type) throws -> Int32 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int64.Type) throws -> Int64 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: Int128.Type) throws -> Int128 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt.Type) throws -> UInt { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }
    mutating func decode(_: UInt128.Type) throws -> UInt128 { try scalar { try $0.integer(at: $1, path: $2, key: $3) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.unwrap(type, at: next(type), path: path, key: JSONKey(index: currentIndex))
        advance()
        return value
    }

    /// Past the end or `null`: nil, and the next element (as `JSONDecoder` does).
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        defer { advance() }
        guard !isAtEnd, decoder.kind(at: element) != .null else { return nil }
        return try decoder.unwrap(type, at: element, path: path, key: JSONKey(index: currentIndex))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try decoder.keyedContainer(
            type, at: next(KeyedDecodingContainer<NestedKey>.self), path: path.appending(JSONKey(index: currentIndex))
        )
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try decoder.unkeyedContainer(
            at: next(TapeUnkeyedContainer.self, "Cannot get nested unkeyed container -- unkeyed container is at end."),
            path: path.appending(JSONKey(index: currentIndex))
        )
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let index = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
        let decoder = decoder.detached(at: index, path: path.appending(JSONKey(index: currentIndex)))
        advance()
        return decoder
    }

    /// A scalar read from the current element by `read`, then the next element.
    private mutating func scalar<T>(_ read: (TapeDecoder, Int, CodingPath, JSONKey) throws -> T) throws -> T {
        let value = try read(decoder, next(T.self), path, JSONKey(index: currentIndex))
        advance()
        return value
    }

    /// The current element's node, or `valueNotFound` past the end.
    private func next<T>(_ type: T.Type, _ message: String = "Unkeyed container is at end.") throws -> Int {
        guard isAtEnd else { return element }
        throw DecodingError.valueNotFound(
            type,
            .init(codingPath: path.appending(JSONKey(index: currentIndex)).keys, debugDescription: message)
        )
    }

    private mutating func advance() {
        if !isAtEnd { element = decoder.tape.after(element) }
        currentIndex += 1
    }
}
