/// One operation of a JSON Patch document (RFC 6902).
public enum PatchOperation: Sendable, Equatable {
    /// Adds `value` at `path`: a new member, an item inserted before the index (`-`: at the
    /// end), or the whole document; an existing member is replaced.
    case add(path: JSONPointer, value: JSON)
    /// Removes the value at `path`.
    case remove(path: JSONPointer)
    /// Replaces the value at `path`, which must exist.
    case replace(path: JSONPointer, value: JSON)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: JSONPointer, path: JSONPointer)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: JSONPointer, path: JSONPointer)
    /// Fails the patch unless the value at `path` equals `value` (``JSON/matches(_:)``).
    case test(path: JSONPointer, value: JSON)

    /// The operation's `op` member.
    public var name: String {
        switch self {
        case .add: "add"
        case .remove: "remove"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The operation as a JSON object: `{"op": …, "path": …}` with `from` or `value` as it needs.
    public var json: JSON {
        var object = JSONObject()
        object["op"] = .string(name)
        switch self {
        case .add(let path, let value), .replace(let path, let value), .test(let path, let value):
            object["path"] = .string(path.description)
            object["value"] = value
        case .remove(let path):
            object["path"] = .string(path.description)
        case .move(let from, let path), .copy(let from, let path):
            object["from"] = .string(from.description)
            object["path"] = .string(path.description)
        }
        return .object(object)
    }

    /// Reads an operation object. Members other than the ones its `op` needs are ignored, as
    /// RFC 6902 §4 says; `value` may be `null` but must be present where it is needed.
    public init(json: JSON) throws(JSONPatchError) {
        guard case .object(let object) = json else {
            throw JSONPatchError(code: .malformedPatch, message: "an operation must be an object, not \(json.kind)")
        }
        let name = try Self.string("op", in: object)
        let path = try JSONPointer(Self.string("path", in: object))
        switch name {
        case "add": self = .add(path: path, value: try Self.value(in: object, for: name))
        case "remove": self = .remove(path: path)
        case "replace": self = .replace(path: path, value: try Self.value(in: object, for: name))
        case "move": self = .move(from: try JSONPointer(Self.string("from", in: object)), path: path)
        case "copy": self = .copy(from: try JSONPointer(Self.string("from", in: object)), path: path)
        case "test": self = .test(path: path, value: try Self.value(in: object, for: name))
        default: throw JSONPatchError(code: .malformedPatch, message: "unknown op \"\(name)\"; known: add, remove, replace, move, copy, test")
        }
    }

    private static func string(_ member: String, in object: JSONObject) throws(JSONPatchError) -> String {
        guard case .string(let text)? = object[member] else {
            throw JSONPatchError(code: .malformedPatch, message: "an operation needs a string \"\(member)\"")
        }
        return text
    }

    private static func value(in object: JSONObject, for name: String) throws(JSONPatchError) -> JSON {
        guard let value = object["value"] else {
            throw JSONPatchError(code: .malformedPatch, message: "a \(name) operation needs a \"value\"")
        }
        return value
    }
}

extension Array where Element == PatchOperation {
    /// Reads a patch document: a JSON array of operations.
    public init(json: JSON) throws(JSONPatchError) {
        guard case .array(let items) = json else {
            throw JSONPatchError(code: .malformedPatch, message: "a patch must be an array of operations, not \(json.kind)")
        }
        var operations: [PatchOperation] = []
        operations.reserveCapacity(items.count)
        for item in items {
            operations.append(try PatchOperation(json: item))
        }
        self = operations
    }

    /// The patch document as a JSON array.
    public var json: JSON {
        .array(map(\.json))
    }

    /// The patch document as compact JSON (see ``JSON/canonicalBytes``).
    public var canonicalBytes: [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "[")]
        for (position, operation) in enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            operation.json.write(to: &output)
        }
        output.append(UInt8(ascii: "]"))
        return output
    }
}
