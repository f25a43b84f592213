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
        let name = JSONCoding.string(type)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + name.count + (payload?.count ?? 0))
        bytes += #"{"type":"#.utf8
        bytes += name
        if let payload, !payload.isEmpty, !(payload.count == 2 && payload[0] == UInt8(ascii: "{") && payload[1] == UInt8(ascii: "}")) {
            bytes += #","payload":"#.utf8
            bytes += payload
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
