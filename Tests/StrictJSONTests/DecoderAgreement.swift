import Foundation
import StrictJSON
import Testing

/// What decoding a text gave: the value (described), or the error's case, type and coding path.
enum DecodingOutcome: Equatable, CustomStringConvertible {
    case value(String)
    case error(String, path: [String])
    case other(String)

    init<T>(_ result: () throws -> T) {
        do {
            self = .value(String(reflecting: try result()))
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(let type, let context): self = .error("typeMismatch(\(type))", path: Self.path(context.codingPath))
            case .valueNotFound(let type, let context): self = .error("valueNotFound(\(type))", path: Self.path(context.codingPath))
            case .keyNotFound(let key, let context): self = .error("keyNotFound(\(key.stringValue))", path: Self.path(context.codingPath))
            case .dataCorrupted(let context): self = .error("dataCorrupted", path: Self.path(context.codingPath))
            @unknown default: self = .other("\(error)")
            }
        } catch {
            self = .other("\(error)")
        }
    }

    /// Each key as its string and its integer value: `payload`, `Index 2#2`.
    private static func path(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
    }

    var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .error(let name, let path): "\(name) at \(path)"
        case .other(let error): "other \(error)"
        }
    }
}

/// `text` decoded as `type` by the strict decoder and by Foundation's `JSONDecoder`.
func bothDecoders<T: Decodable>(_ type: T.Type, _ text: String) -> (strict: DecodingOutcome, foundation: DecodingOutcome) {
    let bytes = Array(text.utf8)
    let strict = StrictJSONDecoder()
    return (
        DecodingOutcome { try strict.decode(type, from: bytes) },
        DecodingOutcome { try JSONDecoder().decode(type, from: Data(bytes)) }
    )
}

/// One row of an agreement table: a name, and a run of both decoders.
struct AgreementCase: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable () -> (strict: DecodingOutcome, foundation: DecodingOutcome)

    init<T: Decodable & SendableMetatype>(_ name: String, _ type: T.Type, _ text: String) {
        self.name = name
        run = { bothDecoders(type, text) }
    }

    var testDescription: String { name }
}
