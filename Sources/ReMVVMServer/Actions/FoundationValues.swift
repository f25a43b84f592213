import Foundation
import StrictJSON

/// Foundation's types that `JSONDecoder` decodes other than by their own `init(from:)`, decoded
/// the same way for ``StrictJSONDecoder`` (its ``StrictJSONDecoder/valueDecoding``): `URL` from a
/// string, `Data` from Base64, `Decimal` from the number as written, `Date` by its own decoder
/// after a `null` check naming `Date`. StrictJSON does not import Foundation; this is its bridge.
enum FoundationValues {
    /// `type` decoded from `value` as `JSONDecoder` decodes it, or nil for any other type.
    @Sendable static func decode(_ type: any Decodable.Type, _ value: StrictJSONDecoder.Value) throws -> (any Decodable)? {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(URL.self):
            guard let url = URL(string: try string(value, for: URL.self)) else { throw corrupted(value, "Invalid URL string.") }
            return url
        case ObjectIdentifier(Data.self):
            guard let data = Data(base64Encoded: try string(value, for: Data.self)) else {
                throw corrupted(value, "Encountered Data is not valid Base64.")
            }
            return data
        case ObjectIdentifier(Decimal.self):
            try checkNotNull(value, Decimal.self)
            guard let literal = value.numberLiteral else {
                throw DecodingError.typeMismatch(Decimal.self, .init(codingPath: value.codingPath, debugDescription: ""))
            }
            guard let decimal = Decimal(string: literal, locale: nil) else {
                throw corrupted(value, "Parsed JSON number <\(literal)> does not fit in Decimal.")
            }
            return decimal
        case ObjectIdentifier(Date.self):
            try checkNotNull(value, Date.self)
            return try value.decode(Date.self)
        default:
            return nil
        }
    }

    /// The string `value` holds, for a value of `type` decoded from one.
    private static func string(_ value: StrictJSONDecoder.Value, for type: Any.Type) throws -> String {
        try checkNotNull(value, type)
        guard let string = value.string else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(codingPath: value.codingPath, debugDescription: "Expected to decode String but found \(value.kindDescription) instead.")
            )
        }
        return string
    }

    private static func checkNotNull(_ value: StrictJSONDecoder.Value, _ type: Any.Type) throws {
        guard value.isNull else { return }
        throw DecodingError.valueNotFound(
            type,
            .init(codingPath: value.codingPath, debugDescription: "Cannot get value of type \(type) -- found null value instead")
        )
    }

    private static func corrupted(_ value: StrictJSONDecoder.Value, _ description: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: value.codingPath, debugDescription: description))
    }
}
