/// The operations that turn `old` into `new`: applying them to `old` (``apply(_:to:)``) gives a
/// value equal to `new` (`==`, so number literals and strings exactly as in `new`).
///
/// Only `add`, `remove` and `replace`. Objects are compared member by member (in name order).
/// Arrays keep their common prefix and suffix; the items in between are compared pairwise, and
/// what one side has more is added or removed, so one item changed in a 10,000-item array gives
/// the operations of that item alone (an array emptied or filled is replaced whole). A value of another kind, or a different scalar, is
/// replaced whole; equal values give no operation.
public func diff(_ old: JSON, _ new: JSON) -> [PatchOperation] {
    var differ = Differ(maxOperations: .max)
    differ.compare(old, new)
    return differ.operations
}

/// ``diff(_:_:)``, or nil as soon as it would take more than `maxOperations` operations: for a
/// caller that has no use for a large patch (every operation takes at least 25 bytes of JSON,
/// `{"op":"remove","path":""}`, so a patch of more than n / 25 operations is longer than n bytes).
public func diff(_ old: JSON, _ new: JSON, maxOperations: Int) -> [PatchOperation]? {
    var differ = Differ(maxOperations: maxOperations)
    differ.compare(old, new)
    return differ.exceeded ? nil : differ.operations
}

/// Walks two values side by side, keeping the path of where it is.
private struct Differ {
    let maxOperations: Int
    var path: [String] = []
    var operations: [PatchOperation] = []
    /// Set once more than `maxOperations` were needed; the walk then stops.
    private(set) var exceeded = false

    init(maxOperations: Int) {
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

    mutating func compare(_ old: JSON, _ new: JSON) {
        guard !exceeded else { return }
        switch (old, new) {
        case (.object(let before), .object(let after)):
            compareObjects(before, after)
        case (.array(let before), .array(let after)):
            compareArrays(before, after)
        default:
            if old != new {
                emit(.replace(path: pointer, value: new))
            }
        }
    }

    private mutating func compareObjects(_ old: JSONObject, _ new: JSONObject) {
        let before = old.members
        let after = new.members
        var i = 0
        var j = 0
        while i < before.count || j < after.count, !exceeded {
            let order: JSONObject.Ordering
            if i == before.count {
                order = .orderedDescending
            } else if j == after.count {
                order = .orderedAscending
            } else {
                order = JSONObject.compare(before[i].key, after[j].key)
            }
            switch order {
            case .orderedAscending:  // only in old
                emit(.remove(path: pointer.appending(before[i].key)))
                i += 1
            case .orderedDescending:  // only in new
                emit(.add(path: pointer.appending(after[j].key), value: after[j].value))
                j += 1
            case .orderedSame:
                path.append(before[i].key)
                compare(before[i].value, after[j].value)
                path.removeLast()
                i += 1
                j += 1
            }
        }
    }

    private mutating func compareArrays(_ old: [JSON], _ new: [JSON]) {
        if old.isEmpty != new.isEmpty {
            // Emptied or filled: one replace says it in fewer bytes than an op per item.
            emit(.replace(path: pointer, value: .array(new)))
            return
        }
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        let oldMiddle = old.count - prefix - suffix
        let newMiddle = new.count - prefix - suffix
        let paired = min(oldMiddle, newMiddle)
        for offset in 0..<paired where !exceeded {
            path.append(String(prefix + offset))
            compare(old[prefix + offset], new[prefix + offset])
            path.removeLast()
        }
        // Indexes after the pairs: the rest of new's middle goes in before the common suffix, or
        // the rest of old's middle comes out, each removal moving the next item to that index.
        let start = prefix + paired
        for offset in 0..<(newMiddle - paired) where !exceeded {
            emit(.add(path: pointer.appending(String(start + offset)), value: new[start + offset]))
        }
        let removal = pointer.appending(String(start))
        for _ in 0..<(oldMiddle - paired) where !exceeded {
            emit(.remove(path: removal))
        }
    }
}
