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
