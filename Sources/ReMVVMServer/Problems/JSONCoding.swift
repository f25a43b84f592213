import Foundation
import MicroHTTP

/// The JSON settings of the service: compact (one line), keys sorted so equal values give equal bytes
/// (Linux's encoder otherwise orders keys arbitrarily), `/` unescaped.
enum JSONCoding {
    /// Shared encoder; `JSONEncoder` is safe to use from several threads once configured.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as JSON bytes.
    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }

    /// `text` as a JSON string literal, byte for byte what ``encode(_:)`` gives. Text that needs
    /// no escape (no `"`, `\\` or control character; wire names and most values) is copied as
    /// is, without the encoder's cost (it ran for every event and every journal entry); any
    /// other text goes through the encoder.
    static func string(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != 0x7F else {
                return (try? encode(text)) ?? Array("\"\"".utf8)
            }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }

    /// A JSON response.
    static func response(_ bytes: [UInt8], status: Int = 200, headers extra: [(String, String)] = []) -> Response {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        return Response(status: status, headers: headers, body: .bytes(bytes))
    }
}
