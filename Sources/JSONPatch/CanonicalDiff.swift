/// ``diff(_:_:maxOperations:)`` of two JSON texts written canonically, without parsing them: equal
/// values are found by comparing their bytes, and only the values an operation carries are parsed.
///
/// Both texts must be written the way the server writes states (`JSONCoding`) and
/// ``JSON/canonicalBytes`` writes values: each object's members sorted by their names' UTF-8 bytes
/// with no name twice, and a string always escaped the same way. Then two values are equal (`==`:
/// the same number text, the same code points) exactly when their bytes are, and the operations
/// are those of the trees' diff. Whitespace between tokens is allowed. Throws for a text that is not JSON where it is read (what the walk skips over because
/// both sides have the same bytes is not checked); nil when more than `maxOperations` are needed.
public func diff(canonical old: [UInt8], _ new: [UInt8], maxOperations: Int) throws(JSONPatchError) -> [PatchOperation]? {
    let result: Result<[PatchOperation]?, JSONPatchError> = old.withUnsafeBufferPointer { oldText in
        new.withUnsafeBufferPointer { newText in
            var differ = CanonicalDiffer(old: CanonicalText(bytes: oldText), new: CanonicalText(bytes: newText), maxOperations: maxOperations)
            do throws(JSONPatchError) {
                try differ.compare(differ.old.wholeValue(), differ.new.wholeValue())
                return .success(differ.exceeded ? nil : differ.operations)
            } catch {
                return .failure(error)
            }
        }
    }
    return try result.get()
}

/// Walks two canonical texts side by side, as `Differ` walks two trees.
private struct CanonicalDiffer {
    let old: CanonicalText
    let new: CanonicalText
    let maxOperations: Int
    var path: [String] = []
    var operations: [PatchOperation] = []
    private(set) var exceeded = false

    init(old: CanonicalText, new: CanonicalText, maxOperations: Int) {
        self.old = old
        self.new = new
        self.maxOperations = maxOperations
    }

    private mutating func emit(_ operation: PatchOperation) {
        guard operations.count < maxOperations else {
            exceeded = true
            return
        }
        operations.append(operation)
    }

    private var pointer: JSONPointer { JSONPointer(tokens: path) }

    /// Whether the two values have the same bytes (compared 8 at a time).
    private func same(_ before: Range<Int>, _ after: Range<Int>) -> Bool {
        guard before.count == after.count else { return false }
        guard let oldBase = old.bytes.baseAddress, let newBase = new.bytes.baseAddress else { return before.isEmpty }
        let left = UnsafeRawPointer(oldBase + before.lowerBound)
        let right = UnsafeRawPointer(newBase + after.lowerBound)
        var offset = 0
        while offset + 8 <= before.count {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset += 8
        }
        while offset < before.count {
            guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }

    mutating func compare(_ before: Range<Int>, _ after: Range<Int>) throws(JSONPatchError) {
        guard !exceeded, !same(before, after) else { return }
        switch (old.bytes[before.lowerBound], new.bytes[after.lowerBound]) {
        case (UInt8(ascii: "{"), UInt8(ascii: "{")):
            try compareObjects(before, after)
        case (UInt8(ascii: "["), UInt8(ascii: "[")):
            try compareArrays(before, after)
        default:
            emit(.replace(path: pointer, value: try new.value(after)))
        }
    }

    private mutating func compareObjects(_ beforeObject: Range<Int>, _ afterObject: Range<Int>) throws(JSONPatchError) {
        let before = try old.members(of: beforeObject)
        let after = try new.members(of: afterObject)
        var i = 0
        var j = 0
        while i < before.count || j < after.count, !exceeded {
            let order: JSONObject.Ordering
            if i == before.count {
                order = .orderedDescending
            } else if j == after.count {
                order = .orderedAscending
            } else {
                order = try CanonicalText.compare(old, before[i].key, new, after[j].key)
            }
            switch order {
            case .orderedAscending:  // only in old
                emit(.remove(path: pointer.appending(try old.name(before[i].key))))
                i += 1
            case .orderedDescending:  // only in new
                emit(.add(path: pointer.appending(try new.name(after[j].key)), value: try new.value(after[j].value)))
                j += 1
            case .orderedSame:
                if !same(before[i].value, after[j].value) {
                    path.append(try new.name(after[j].key))
                    try compare(before[i].value, after[j].value)
                    path.removeLast()
                }
                i += 1
                j += 1
            }
        }
    }

    private mutating func compareArrays(_ beforeArray: Range<Int>, _ afterArray: Range<Int>) throws(JSONPatchError) {
        let old = try self.old.elements(of: beforeArray)
        let new = try self.new.elements(of: afterArray)
        if old.isEmpty != new.isEmpty {
            emit(.replace(path: pointer, value: try self.new.value(afterArray)))
            return
        }
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, same(old[prefix], new[prefix]) {
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix, same(old[old.count - 1 - suffix], new[new.count - 1 - suffix]) {
            suffix += 1
        }
        let oldMiddle = old.count - prefix - suffix
        let newMiddle = new.count - prefix - suffix
        let paired = min(oldMiddle, newMiddle)
        for offset in 0..<paired where !exceeded {
            path.append(String(prefix + offset))
            try compare(old[prefix + offset], new[prefix + offset])
            path.removeLast()
        }
        let start = prefix + paired
        for offset in 0..<(newMiddle - paired) where !exceeded {
            emit(.add(path: pointer.appending(String(start + offset)), value: try self.new.value(new[start + offset])))
        }
        let removal = pointer.appending(String(start))
        for _ in 0..<(oldMiddle - paired) where !exceeded {
            emit(.remove(path: removal))
        }
    }
}
