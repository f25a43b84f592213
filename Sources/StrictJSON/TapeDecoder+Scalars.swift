/// The scalars of the tape as Swift values, and the errors `JSONDecoder` gives for them: a
/// `null` where a value is required is `valueNotFound` (`typeMismatch` for `Bool`, as there), a
/// value of another kind `typeMismatch`, a number the type cannot hold `dataCorrupted` at its path.
extension TapeDecoder {
    func kind(at index: Int) -> JSONTape.Kind {
        tape.nodes[index].kind
    }

    /// The string at `index`, escapes resolved (the reader checked its UTF-8 and escapes).
    func text(at index: Int) -> String {
        bytes.withUnsafeBufferPointer { tape.string(at: index, in: $0).text }
    }

    /// The literal of the number at `index`, as written.
    func literal(at index: Int) -> String {
        let node = tape.nodes[index]
        return String(decoding: bytes[node.start..<node.end], as: UTF8.self)
    }

    /// The value node of the member of the object at `object` whose name is `name` by Swift's
    /// `==` (as a `Dictionary<String, _>` finds a key), compared by bytes while both are ASCII.
    func member(named name: String, in object: Int) -> Int? {
        var utf8 = name
        return utf8.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { bytes in
                var found: Int?
                tape.forEachMember(of: object) { member, value in
                    let node = tape.nodes[member]
                    let plain = node.flags == JSONTape.Node.isASCII  // ASCII, no escapes
                    if plain, node.end - node.start == wanted.count, Self.equal(bytes, from: node.start, wanted) {
                        found = value
                    } else if !plain || wanted.contains(where: { $0 >= 0x80 }) {
                        // Only a name with other characters can be canonically equal to an ASCII one
                        // (U+212A KELVIN SIGN is "K").
                        if tape.string(at: member, in: bytes).text == name { found = value }
                    }
                    return found == nil
                }
                return found
            }
        }
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        for offset in 0..<other.count where bytes[start + offset] != other[offset] {
            return false
        }
        return true
    }

    func bool(at index: Int, path: CodingPath, key: (any CodingKey)?) throws -> Bool {
        switch kind(at: index) {
        case .true: true
        case .false: false
        default: throw typeMismatch(Bool.self, at: index, path: path, key: key)
        }
    }

    func string(at index: Int, path: CodingPath, key: (any CodingKey)?) throws -> String {
        guard kind(at: index) == .string else { throw notA(String.self, at: index, path: path, key: key) }
        return text(at: index)
    }

    func integer<T: FixedWidthInteger>(at index: Int, path: CodingPath, key: (any CodingKey)?) throws -> T {
        guard kind(at: index) == .number else { throw notA(T.self, at: index, path: path, key: key) }
        let node = tape.nodes[index]
        let value: T? = bytes.withUnsafeBufferPointer { JSONNumber.integer(UnsafeBufferPointer(rebasing: $0[node.start..<node.end])) }
        guard let value else { throw doesNotFit(T.self, at: index, path: path, key: key) }
        return value
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        at index: Int, path: CodingPath, key: (any CodingKey)?
    ) throws -> T {
        guard kind(at: index) == .number else { throw notA(T.self, at: index, path: path, key: key) }
        let node = tape.nodes[index]
        let value: T? = bytes.withUnsafeBufferPointer { JSONNumber.floatingPoint(UnsafeBufferPointer(rebasing: $0[node.start..<node.end])) }
        guard let value else { throw doesNotFit(T.self, at: index, path: path, key: key) }
        return value
    }

    /// `typeMismatch` (`valueNotFound` for `null`) for a value that is not the scalar asked for.
    private func notA(_ type: Any.Type, at index: Int, path: CodingPath, key: (any CodingKey)?) -> DecodingError {
        guard kind(at: index) == .null else { return typeMismatch(type, at: index, path: path, key: key) }
        return DecodingError.valueNotFound(
            type,
            .init(codingPath: path.appending(key).keys, debugDescription: "Cannot get value of type \(type) -- found null value instead")
        )
    }

    func typeMismatch(_ type: Any.Type, at index: Int, path: CodingPath, key: (any CodingKey)?) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(codingPath: path.appending(key).keys, debugDescription: "Expected to decode \(type) but found \(describeKind(at: index)) instead.")
        )
    }

    private func doesNotFit(_ type: Any.Type, at index: Int, path: CodingPath, key: (any CodingKey)?) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(codingPath: path.appending(key).keys, debugDescription: "Parsed JSON number <\(literal(at: index))> does not fit in \(type).")
        )
    }

    /// What the value at `index` is, in `JSONDecoder`'s words.
    func describeKind(at index: Int) -> String {
        switch kind(at: index) {
        case .object: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        }
    }
}
