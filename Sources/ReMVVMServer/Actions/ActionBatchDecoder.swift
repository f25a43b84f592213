import ReMVVM
import StrictJSON

/// Turns a `POST /actions` body into actions: one envelope or an array of them; all or nothing.
///
/// The body is read once: the strict reader checks it and indexes it, and the envelopes and their
/// payloads decode from that index (``StrictJSON/StrictJSONDecoder``), not from the text again.
struct ActionBatchDecoder: Sendable {
    private let registry: ActionRegistry
    private let decoder: StrictJSONDecoder

    init(registry: ActionRegistry) {
        self.registry = registry
        decoder = StrictJSONValidator.decoder(userInfo: [.actionRegistry: registry])
    }

    /// The actions in `body`, in order, or the reason none can be applied.
    func decode(_ body: [UInt8]) throws(ActionDecodingError) -> [any StoreAction] {
        guard let first = body.first(where: { !StrictJSONValidator.isWhitespace($0) }) else {
            throw .malformedJSON("the body is empty; send an action like {\"type\": \"\(registry.names.first ?? "name")\"}")
        }
        guard Self.isValidUTF8(body) else {
            throw .notUTF8
        }
        do {
            if first == UInt8(ascii: "{"), let action = try decodeBareAction(body) {
                return [action]
            }
            // Chosen by the first byte rather than by trying one container and catching the error:
            // a thrown DecodingError builds descriptions, on every single-action POST.
            if first == UInt8(ascii: "[") {
                return try decoder.decode(WireBatch.self, from: body).actions
            }
            return [try decoder.decode(WireAction.self, from: body).action]
        } catch let error as StrictJSONError {
            throw ActionDecodingError.notStrictJSON(error)
        } catch let error as ActionDecodingError {
            throw error
        } catch let error as DecodingError {
            throw ActionDecodingError(error)
        } catch {
            throw .malformedJSON("\(error)")
        }
    }

    /// The action of a body that is exactly `{"type":"<name>"}` (``BareActionScanner``), decoded
    /// as the full path would, from an empty payload; nil for any other body. Its name is looked
    /// up by its bytes: a string of it is made only for an error.
    private func decodeBareAction(_ body: [UInt8]) throws -> (any StoreAction)? {
        let found = body.withUnsafeBufferPointer { bytes -> (range: Range<Int>, entry: ActionRegistry.Entry?)? in
            BareActionScanner.typeNameRange(in: bytes).map { ($0, registry.entry(nameBytes: UnsafeBufferPointer(rebasing: bytes[$0]))) }
        }
        guard let found else { return nil }
        guard let entry = found.entry else {
            // Unknown: the same error, through the lookup by name.
            return try registry.decodeAction(named: String(decoding: body[found.range], as: UTF8.self)) { try $0.decodeWithoutPayload() }
        }
        return try ActionRegistry.decode(entry) { try $0.decodeWithoutPayload() }
    }

    /// Whether `body` is UTF-8; ASCII (most bodies) is checked without building a string.
    static func isValidUTF8(_ body: [UInt8]) -> Bool {
        if body.allSatisfy({ $0 < 0x80 }) {
            return true
        }
        return String(validating: body, as: UTF8.self) != nil
    }
}

extension ActionRegistry {
    /// The action registered as `name`, decoded by `decode` from its entry; an unknown name or a
    /// payload that does not decode becomes an ``ActionDecodingError`` naming the action.
    func decodeAction(
        named name: String,
        _ decode: (Entry) throws -> any StoreAction
    ) throws -> any StoreAction {
        guard let entry = entry(named: name) else {
            throw ActionDecodingError.unknownType(name, known: names)
        }
        return try Self.decode(entry, decode)
    }

    /// The action of `entry`, decoded by `decode`; a payload that does not decode becomes an
    /// ``ActionDecodingError`` naming the action.
    static func decode(_ entry: Entry, _ decode: (Entry) throws -> any StoreAction) throws -> any StoreAction {
        do {
            return try decode(entry)
        } catch let error as DecodingError {
            var failure = ActionDecodingError(error)
            failure.actionType = entry.name
            throw failure
        }
    }
}

extension CodingUserInfoKey {
    /// Where the action decoder finds the registry.
    static let actionRegistry = CodingUserInfoKey(rawValue: "remvvm.actionRegistry")!  // a non-empty literal key
}

/// An array of action envelopes.
private struct WireBatch: Decodable {
    let actions: [any StoreAction]

    init(from decoder: any Decoder) throws {
        var array = try decoder.unkeyedContainer()
        var actions: [any StoreAction] = []
        while !array.isAtEnd {
            let index = array.currentIndex
            do {
                actions.append(try array.decode(WireAction.self).action)
            } catch var error as ActionDecodingError {
                error.index = index
                throw error
            }
        }
        guard !actions.isEmpty else {
            throw ActionDecodingError.invalidShape("the batch is empty; send at least one action")
        }
        self.actions = actions
    }
}

/// `{"type": "<wire name>", "payload": {…}}` decoded through the registry.
private struct WireAction: Decodable {
    let action: any StoreAction

    init(from decoder: any Decoder) throws {
        guard let registry = decoder.userInfo[.actionRegistry] as? ActionRegistry else {
            preconditionFailure("ActionBatchDecoder always sets the registry")
        }
        guard let container = try? decoder.container(keyedBy: ActionEnvelopeKey.self) else {
            throw ActionDecodingError.invalidShape(
                "an action is a JSON object {\"type\": \"<name>\", \"payload\": {…}}, or an array of them"
            )
        }
        guard container.contains(.type) else {
            throw ActionDecodingError.invalidShape("the action has no \"type\"; known types: \(registry.names.joined(separator: ", "))")
        }
        guard let name = try? container.decode(String.self, forKey: .type) else {
            throw ActionDecodingError.invalidShape("\"type\" must be a string naming the action")
        }
        action = try registry.decodeAction(named: name) { try $0.decode(container) }
    }
}
