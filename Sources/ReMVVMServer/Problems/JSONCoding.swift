import ConcurrencyKit
import Foundation
import MicroHTTP
import Synchronization

/// The JSON settings of the service: compact (one line), keys sorted so equal values give equal bytes
/// (Linux's encoder otherwise orders keys arbitrarily), `/` unescaped.
package enum JSONCoding {
    /// Shared encoder; `JSONEncoder` is safe to use from several threads once configured.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as JSON bytes: what ``encoder`` gives, written by ``SortedJSONWriter`` (several
    /// times faster), or by ``encoder`` itself for a value that writer leaves to it — and from then
    /// on for every value of a type whose containers it could not follow.
    package static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let type = ObjectIdentifier(Value.self)
        if !isLeftToFoundation(type) {
            do {
                return try SortedJSONWriter.encode(value)
            } catch let unsupported as SortedJSONWriter.Unsupported where unsupported.isStructural {
                typesLeftToFoundation.withLock { types in
                    types.insert(type)
                    anyTypeLeftToFoundation.store(true, ordering: .releasing)
                }
            } catch {
                // A non-finite number, or the value threw: `JSONEncoder` gives the error its form.
            }
        }
        return Array(try encoder.encode(value))
    }

    /// Types whose values ``SortedJSONWriter`` could not encode for the way they use containers.
    private static let typesLeftToFoundation = Lock(Set<ObjectIdentifier>())

    /// Whether ``typesLeftToFoundation`` has any type: while it has none (the usual case: the
    /// service's own types all encode by the writer), an encode reads this flag, not the lock.
    private static let anyTypeLeftToFoundation = Atomic<Bool>(false)

    /// Whether values of `type` go to ``encoder`` (a type recorded in ``typesLeftToFoundation``).
    private static func isLeftToFoundation(_ type: ObjectIdentifier) -> Bool {
        anyTypeLeftToFoundation.load(ordering: .acquiring) && typesLeftToFoundation.withLock { $0.contains(type) }
    }

    /// `text` as a JSON string literal, byte for byte what ``encode(_:)`` gives (wire names and
    /// values of every event and journal entry), without an encoder.
    static func string(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        SortedJSONWriter.appendString(text, to: &bytes)
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
