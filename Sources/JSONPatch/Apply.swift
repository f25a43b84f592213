/// `document` with `patch` applied, operation by operation, as RFC 6902 §4 specifies; the first
/// operation that cannot be applied throws, and no partial result is returned.
///
/// Array indexes are decimal without leading zeros; `-` (after the last item) only for `add`.
/// `remove` of the whole document and `move` into the moved value's own children throw
/// ``JSONPatchError/Code/invalidTarget``.
public func apply(_ patch: [PatchOperation], to document: JSON) throws(JSONPatchError) -> JSON {
    var result = document
    for operation in patch {
        try result.apply(operation)
    }
    return result
}

extension JSON {
    /// Applies one operation in place.
    mutating func apply(_ operation: PatchOperation) throws(JSONPatchError) {
        switch operation {
        case .add(let path, let value):
            try add(value, at: path)
        case .remove(let path):
            _ = try remove(at: path)
        case .replace(let path, let value):
            try withValue(at: path.tokens[...], pointer: path) { (target: inout JSON) throws(JSONPatchError) in target = value }
        case .move(let from, let path):
            guard from != path else {
                _ = try value(at: from)  // a move onto itself changes nothing, but `from` must exist
                return
            }
            guard !from.isProperPrefix(of: path) else {
                throw JSONPatchError(.invalidTarget, "cannot move \(from) into its own child \(path)")
            }
            let value = try remove(at: from)
            try add(value, at: path)
        case .copy(let from, let path):
            try add(try value(at: from), at: path)
        case .test(let path, let expected):
            let actual = try value(at: path)
            guard actual.matches(expected) else {
                throw JSONPatchError(.testFailed, "test failed at \"\(path)\": expected \(expected.canonicalText), found \(actual.canonicalText)")
            }
        }
    }

    /// The value at `pointer`.
    public func value(at pointer: JSONPointer) throws(JSONPatchError) -> JSON {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let object):
                guard let member = object[token] else { throw Self.notFound(pointer) }
                current = member
            case .array(let items):
                current = items[try Self.index(token, in: items, pointer: pointer, allowEnd: false)]
            default:
                throw Self.notFound(pointer)
            }
        }
        return current
    }

    private mutating func add(_ value: JSON, at pointer: JSONPointer) throws(JSONPatchError) {
        guard let last = pointer.tokens.last else {
            self = value
            return
        }
        try withValue(at: pointer.tokens.dropLast(), pointer: pointer) { (parent: inout JSON) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                parent = .null  // no second reference while the object changes
                object[last] = value
                parent = .object(object)
            case .array(var items):
                let index = try Self.index(last, in: items, pointer: pointer, allowEnd: true)
                parent = .null
                items.insert(value, at: index)
                parent = .array(items)
            default:
                throw Self.notFound(pointer)
            }
        }
    }

    private mutating func remove(at pointer: JSONPointer) throws(JSONPatchError) -> JSON {
        guard let last = pointer.tokens.last else {
            throw JSONPatchError(.invalidTarget, "cannot remove the whole document")
        }
        return try withValue(at: pointer.tokens.dropLast(), pointer: pointer) { (parent: inout JSON) throws(JSONPatchError) -> JSON in
            switch parent {
            case .object(var object):
                parent = .null
                defer { parent = .object(object) }
                guard let removed = object.removeValue(forKey: last) else { throw Self.notFound(pointer) }
                return removed
            case .array(var items):
                let index = try Self.index(last, in: items, pointer: pointer, allowEnd: false)
                parent = .null
                defer { parent = .array(items) }
                return items.remove(at: index)
            default:
                throw Self.notFound(pointer)
            }
        }
    }

    /// Runs `body` on the value at `tokens` in place; `pointer` is the whole path, for errors.
    private mutating func withValue<Result>(
        at tokens: ArraySlice<String>,
        pointer: JSONPointer,
        _ body: (inout JSON) throws(JSONPatchError) -> Result
    ) throws(JSONPatchError) -> Result {
        guard let token = tokens.first else { return try body(&self) }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var object):
            // Taken out of `self` so that the object is uniquely referenced while it changes.
            self = .null
            defer { self = .object(object) }
            let result = try object.withValue(forKey: token) { (member: inout JSON) throws(JSONPatchError) in
                try member.withValue(at: rest, pointer: pointer, body)
            }
            guard let result else { throw Self.notFound(pointer) }
            return result
        case .array(var items):
            let index = try Self.index(token, in: items, pointer: pointer, allowEnd: false)
            self = .null
            defer { self = .array(items) }
            return try items[index].withValue(at: rest, pointer: pointer, body)
        default:
            throw Self.notFound(pointer)
        }
    }

    /// The array index `token` names in `items`: a decimal number without leading zeros below
    /// the count (up to it, or `-` for the end, when `allowEnd`).
    private static func index(_ token: String, in items: [JSON], pointer: JSONPointer, allowEnd: Bool) throws(JSONPatchError) -> Int {
        if token == "-" {
            guard allowEnd else {
                throw JSONPatchError(.invalidIndex, "\"-\" (after the last item) names no value at \"\(pointer)\"")
            }
            return items.count
        }
        let digits = token.utf8
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              digits.count == 1 || digits.first != UInt8(ascii: "0") else {
            throw JSONPatchError(.invalidIndex, "\"\(token)\" is not an array index at \"\(pointer)\"")
        }
        guard let index = Int(token), index < items.count || (allowEnd && index == items.count) else {
            throw JSONPatchError(.pathNotFound, "index \(token) is out of bounds (\(items.count) items) at \"\(pointer)\"")
        }
        return index
    }

    private static func notFound(_ pointer: JSONPointer) -> JSONPatchError {
        JSONPatchError(.pathNotFound, "no value at \"\(pointer)\"")
    }
}
