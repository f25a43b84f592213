import StrictJSON

/// Why a `POST /actions` body (or a view-model command's body) cannot be applied; rendered as a
/// problem detail.
struct ActionDecodingError: Error, Sendable {
    enum Code: Sendable {
        /// Not JSON at all (400).
        case malformedJSON
        /// JSON, but not an action or an array of actions (422).
        case invalidShape
        /// A `type` nobody registered (422).
        case unknownType
        /// The payload does not decode into the action (422).
        case invalidPayload
    }

    let code: Code
    var message: String
    /// The wire names a client may use, for `unknownType`.
    var known: [String] = []
    /// The JSON path of the offending field, e.g. `payload.firstName`.
    var field: String?
    /// Position in a batch.
    var index: Int?
    /// The action's wire name, when known.
    var actionType: String?
    /// The view-model command whose body this is, when it is one (`field` is then a path in the
    /// body itself).
    var command: String?

    static func malformedJSON(_ message: String) -> ActionDecodingError {
        ActionDecodingError(code: .malformedJSON, message: message)
    }

    /// A body that is not UTF-8 (RFC 8259: JSON text is), wherever the bad byte is.
    static let notUTF8 = malformedJSON("the body is not valid JSON: it is not valid UTF-8")

    /// A body the strict reader refused, in the validator's words (which rule, at which byte).
    static func notStrictJSON(_ error: StrictJSONError) -> ActionDecodingError {
        malformedJSON("the body is not valid JSON: \(StrictJSONValidator.failure(error))")
    }

    static func invalidShape(_ message: String) -> ActionDecodingError {
        ActionDecodingError(code: .invalidShape, message: message)
    }

    static func unknownType(_ name: String, known: [String]) -> ActionDecodingError {
        ActionDecodingError(
            code: .unknownType,
            message: "unknown action type \"\(name)\"; known types: \(known.joined(separator: ", "))",
            known: known
        )
    }

    /// `payload.items[2].name` from a coding path (array indices in brackets; the batch index
    /// dropped when `inBatch`).
    static func path(_ codingPath: [any CodingKey], inBatch: Bool = true) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        if inBatch, text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            text = String(text[text.index(after: end)...])
            if text.hasPrefix(".") { text.removeFirst() }
        }
        return text.isEmpty ? "(root)" : text
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        let underlying = context.underlyingError.map { " (\($0))" } ?? ""
        return context.debugDescription + underlying
    }
}

extension ActionDecodingError {
    /// Names a decoding error's field: always a payload problem (422), since the body was read by
    /// the strict reader before anything decoded (its errors are the 400s), so even an error at the
    /// root (a number too large for a body that is one `Int8`) is about the value, not the JSON.
    /// `inBatch`: the coding path starts at a batch of actions, whose index is not part of the field.
    init(_ error: DecodingError, inBatch: Bool = true) {
        switch error {
        case .keyNotFound(let key, let context):
            let path = Self.path(context.codingPath + [key], inBatch: inBatch)
            self.init(code: .invalidPayload, message: "missing field \(path)", field: path)
        case .valueNotFound(let type, let context):
            let path = Self.path(context.codingPath, inBatch: inBatch)
            self.init(code: .invalidPayload, message: "field \(path) is null; expected \(type)", field: path)
        case .typeMismatch(let type, let context):
            let path = Self.path(context.codingPath, inBatch: inBatch)
            self.init(code: .invalidPayload, message: "field \(path) has the wrong type; expected \(type)", field: path)
        case .dataCorrupted(let context):
            let path = Self.path(context.codingPath, inBatch: inBatch)
            self.init(code: .invalidPayload, message: "field \(path) is invalid: \(Self.describe(context))", field: path)
        @unknown default:
            self.init(code: .invalidPayload, message: "\(error)")
        }
    }
}
