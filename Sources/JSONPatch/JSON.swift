/// A JSON value (RFC 8259) as JSON Patch reads and writes it.
///
/// Exact where clients need it to be: a number keeps the text it was written with (`1e400`,
/// `-0` and `0.10` survive a round trip unchanged, which no binary floating point type does),
/// and strings and member names compare by their Unicode code points, not by Swift's canonical
/// equivalence (`"é"` written precomposed and decomposed are different JSON strings). `==` is
/// this exact equality; ``matches(_:)`` is the looser one of the `test` operation.
public enum JSON: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text (RFC 8259 grammar: `-0`, `12.50`, `1E+400`).
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object, its members sorted by name.
    case object(JSONObject)
}

extension JSON: Equatable {
    /// Exact equality: same kind, same number text, same code points, same members and items.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            return left.hasSameCodePoints(as: right)
        case (.string(let left), .string(let right)):
            return left.hasSameCodePoints(as: right)
        case (.array(let left), .array(let right)):
            return left.count == right.count && left.elementsEqual(right, by: ==)
        case (.object(let left), .object(let right)):
            return left == right
        default:
            return false
        }
    }
}

extension JSON {
    /// Equality as the `test` operation defines it (RFC 6902 §4.6): numbers by their value (`1`,
    /// `1.0` and `10e-1` are equal, and so are `0` and `-0`), everything else as `==`.
    public func matches(_ other: JSON) -> Bool {
        switch (self, other) {
        case (.number(let left), .number(let right)):
            return JSONNumber(left) == JSONNumber(right)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.matches($1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && zip(left.members, right.members).allSatisfy {
                    $0.key.hasSameCodePoints(as: $1.key) && $0.value.matches($1.value)
                }
        default:
            return self == other
        }
    }

    /// The value of the member named `key` of an object; nil for a missing member or a value
    /// that is not an object.
    public subscript(key: String) -> JSON? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The kind of value, for error messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// Not `ExpressibleByNilLiteral`: with it, `nil` in a `JSON?` context could mean `.null`.
extension JSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A whole number, written in decimal.
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// An object; of two members with one name, the last is kept.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var object = JSONObject()
        for (key, value) in elements {
            object[key] = value
        }
        self = .object(object)
    }
}
