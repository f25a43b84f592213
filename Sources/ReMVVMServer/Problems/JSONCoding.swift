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

    /// A JSON response.
    static func response(_ bytes: [UInt8], status: Int = 200, headers extra: [(String, String)] = []) -> Response {
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        return Response(status: status, headers: headers, body: .bytes(bytes))
    }
}
