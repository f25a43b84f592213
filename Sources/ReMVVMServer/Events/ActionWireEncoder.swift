import Foundation
import ReMVVM

/// Encodes a reduced action as the client sent it: `{"type":"login","payload":{…}}`, the payload left
/// out when it is empty (`{"type":"increase"}`). Actions that were never registered (dispatched by
/// middleware) appear under their Swift type name, without payload.
struct ActionWireEncoder: Sendable {
    let registry: ActionRegistry

    func encode(_ action: any StoreAction) -> [UInt8] {
        guard let name = registry.name(of: action), let entry = registry.entry(named: name) else {
            return Array(#"{"type":"#.utf8) + Self.jsonString(String(describing: type(of: action))) + [UInt8(ascii: "}")]
        }
        var bytes = Array(#"{"type":"#.utf8) + Self.jsonString(name)
        if let payload = try? JSONCoding.encode(PayloadBox(action: action, encode: entry.encodePayload)),
           payload != Array("{}".utf8) {
            bytes += Array(#","payload":"#.utf8) + payload
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static func jsonString(_ text: String) -> [UInt8] {
        (try? JSONCoding.encode(text)) ?? Array("\"\"".utf8)
    }
}

/// Encodes an action's payload through its registry entry.
private struct PayloadBox: Encodable {
    let action: any StoreAction
    let encode: @Sendable (any StoreAction, any Encoder) throws -> Void

    func encode(to encoder: any Encoder) throws {
        try encode(action, encoder)
    }
}
