/// A JSON value built in code (the OpenAPI document), encoded with sorted keys.
indirect enum JSONValue: Encodable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case number(Double)
    /// A whole number written exactly, also past 2^53 (where `number` rounds): `UInt64.max`.
    case unsigned(UInt64)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number):
            if number == number.rounded(), abs(number) < 1e15 {
                try container.encode(Int64(number))
            } else {
                try container.encode(number)
            }
        case .unsigned(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        case .null: try container.encodeNil()
        }
    }

    /// The member `key` of an object, or nil.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}
