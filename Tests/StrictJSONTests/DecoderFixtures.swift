/// Types the decoder tables decode, each exercising a part of `Decodable`.
struct Login: Codable, Equatable {
    let firstName: String
    let lastName: String
}

struct Item: Codable, Equatable {
    let name: String
    let count: Int8
}

struct Order: Codable, Equatable {
    let customer: Login
    let items: [Item]
    let note: String?
    let tags: [String: Int]?
}

struct Widths: Codable, Equatable {
    let int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
    let uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
}

struct Reals: Codable, Equatable {
    let double: Double
    let float: Float
}

struct Flags: Codable, Equatable {
    let on: Bool
    let maybe: Bool?
}

enum Color: String, Codable {
    case red, green
}

enum Level: Int, Codable {
    case low = 1, high = 2
}

struct Paint: Codable, Equatable {
    let color: Color
    let level: Level
}

/// Decodes its base through `superDecoder()` and an extra through `superDecoder(forKey:)`, and
/// an array's first element through the unkeyed container's `superDecoder()`.
struct Layered: Decodable, CustomStringConvertible {
    let base: Login
    let extra: Login?
    let first: Int

    enum Keys: String, CodingKey { case extra, list }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        base = try Login(from: container.superDecoder())
        extra = try Optional<Login>(from: container.superDecoder(forKey: .extra))
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        first = try Int(from: list.superDecoder())
    }

    var description: String { "Layered(\(base), \(String(describing: extra)), \(first))" }
}

/// Reads a nested keyed container, a nested unkeyed one, and walks an array past its end.
struct Walker: Decodable, CustomStringConvertible {
    let values: [Int]

    enum Keys: String, CodingKey { case inner, list, count }
    enum InnerKeys: String, CodingKey { case list }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let inner = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        var list = try inner.nestedUnkeyedContainer(forKey: .list)
        let count = try container.decode(Int.self, forKey: .count)
        var values: [Int] = []
        for _ in 0..<count { values.append(try list.decode(Int.self)) }
        self.values = values
    }

    var description: String { "Walker(\(values))" }
}

/// A key that a member named with another code point matches by canonical equivalence
/// (U+212A KELVIN SIGN is "K").
struct Kelvin: Codable, Equatable {
    // swiftlint:disable:next identifier_name
    let K: Int
}
