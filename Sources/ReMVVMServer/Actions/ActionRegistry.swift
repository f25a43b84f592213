import MicroHTTP
public import ReMVVM

/// Maps wire names (`{"type": "login", …}`) to the `Codable` actions a client may dispatch.
///
/// ```swift
/// var actions = ActionRegistry()
/// actions.register(Increase.self, as: "increase")
/// actions.register(Login.self, as: "login")   // payload {"firstName": …, "lastName": …}
/// ```
/// An unregistered wire name never reaches the store: `POST /actions` answers 422 listing the known names.
public struct ActionRegistry: Sendable {
    struct Entry: Sendable {
        let name: String
        /// Decodes the action from its envelope's `payload`, which must be an object (an absent or
        /// null payload reads as `{}`).
        let decode: @Sendable (KeyedDecodingContainer<ActionEnvelopeKey>) throws -> any StoreAction
        /// Decodes the action from an empty payload (an envelope without `payload`).
        let decodeWithoutPayload: @Sendable () throws -> any StoreAction
        /// Encodes the action as its payload.
        let encodePayload: @Sendable (any StoreAction, any Encoder) throws -> Void
        /// The payload's type, for its schema in the OpenAPI document.
        let payloadType: any (Decodable & Sendable).Type

        /// The action's payload as JSON (`{}` for an action without fields), or nil if it does
        /// not encode.
        /// The payload of a type without stored properties, encoded once: every value of such a
        /// type encodes the same (the journal and the event stream skip the encoder for it).
        let constantPayload: [UInt8]?

        func payloadJSON(of action: any StoreAction) -> [UInt8]? {
            if let constantPayload { return constantPayload }
            return try? JSONCoding.encode(PayloadBox(action: action, encode: encodePayload))
        }
    }

    /// Every registered action, in the order first registered.
    private var entries: [Entry] = []
    /// The position in ``entries`` of each wire name: found by length and bytes, without hashing
    /// the name (a `POST` looks its action's name up, the journal and the event stream theirs).
    private var positionByName = ExactBytesIndex()
    private var nameByType: [ObjectIdentifier: String] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Registers `type` under the wire name `name`; registering a name again replaces it.
    public mutating func register<Action: StoreAction & Codable>(_ type: Action.Type, as name: String) {
        let encodePayload: @Sendable (any StoreAction, any Encoder) throws -> Void = { action, encoder in
            try (action as? Action)?.encode(to: encoder)
        }
        var constantPayload: [UInt8]?
        if MemoryLayout<Action>.size == 0, let sample = try? Action(from: EmptyPayloadDecoder(codingPath: [ActionEnvelopeKey.payload])) {
            constantPayload = try? JSONCoding.encode(PayloadBox(action: sample, encode: encodePayload))
        }
        let entry = Entry(
            name: name,
            decode: { container in
                if try !container.contains(.payload) || container.decodeNil(forKey: .payload) {
                    return try Action(from: EmptyPayloadDecoder(codingPath: container.codingPath + [ActionEnvelopeKey.payload]))
                }
                // A payload is an object, also for an action without fields (whose synthesized
                // decoder would take anything).
                guard (try? container.nestedContainer(keyedBy: ActionEnvelopeKey.self, forKey: .payload)) != nil else {
                    throw DecodingError.typeMismatch(
                        [String: Any].self,
                        .init(codingPath: container.codingPath + [ActionEnvelopeKey.payload], debugDescription: "payload must be a JSON object")
                    )
                }
                return try container.decode(Action.self, forKey: .payload)
            },
            decodeWithoutPayload: {
                try Action(from: EmptyPayloadDecoder(codingPath: [ActionEnvelopeKey.payload]))
            },
            encodePayload: encodePayload,
            payloadType: Action.self,
            constantPayload: constantPayload
        )
        if let position = positionByName.value(for: name) {
            entries[position] = entry
        } else {
            positionByName.set(name, to: entries.count)
            entries.append(entry)
        }
        nameByType[ObjectIdentifier(type)] = name
    }

    /// The registered wire names, sorted.
    public var names: [String] {
        entries.map(\.name).sorted()
    }

    /// The JSON Schema of `name`'s payload, inferred from its `Decodable` conformance; nil when
    /// unknown or when the inference cannot follow it.
    func payloadSchema(of name: String) -> JSONValue? {
        entry(named: name).flatMap { SchemaInference.schema(of: $0.payloadType) }
    }

    func entry(named name: String) -> Entry? {
        positionByName.value(for: name).map { entries[$0] }
    }

    /// The action registered under the name spelled by `bytes` (UTF-8), if any.
    func entry(nameBytes bytes: UnsafeBufferPointer<UInt8>) -> Entry? {
        positionByName.value(forBytes: bytes).map { entries[$0] }
    }

    /// The wire name of `action`'s type, if registered.
    /// Every registered type with its wire name.
    var namesByType: [ObjectIdentifier: String] {
        nameByType
    }

    func name(of action: any StoreAction) -> String? {
        nameByType[actionTypeIdentifier(of: action)]
    }
}

/// The keys of an action envelope: `{"type": …, "payload": …}`.
enum ActionEnvelopeKey: String, CodingKey {
    case type, payload
}

/// Encodes an action's payload through its registry entry.
private struct PayloadBox: Encodable {
    let action: any StoreAction
    let encode: @Sendable (any StoreAction, any Encoder) throws -> Void

    func encode(to encoder: any Encoder) throws {
        try encode(action, encoder)
    }
}
