import Foundation
import ReMVVM

/// Encodes a reduced action as the client sent it: `{"type":"login","payload":{…}}`, the payload left
/// out when it is empty (`{"type":"increase"}`). Actions that were never registered (dispatched by
/// middleware) appear under their Swift type name, without payload.
struct ActionWireEncoder: Sendable {
    let registry: ActionRegistry

    func encode(_ action: any StoreAction) -> [UInt8] {
        guard let name = registry.name(of: action), let entry = registry.entry(named: name) else {
            return Self.envelope(type: String(describing: type(of: action)), payload: nil)
        }
        return Self.envelope(type: name, payload: entry.payloadJSON(of: action))
    }

    /// `{"type":<type>,"payload":<payload>}`, the payload left out when it is nil, empty or `{}`.
    static func envelope(type: String, payload: [UInt8]?) -> [UInt8] {
        var bytes = Array(#"{"type":"#.utf8) + jsonString(type)
        if let payload, !payload.isEmpty, payload != Array("{}".utf8) {
            bytes += Array(#","payload":"#.utf8) + payload
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static func jsonString(_ text: String) -> [UInt8] {
        (try? JSONCoding.encode(text)) ?? Array("\"\"".utf8)
    }
}
