/// The operations that turn `old` into `new`: applying them to `old` (``apply(_:to:)``) gives a
/// value equal to `new` (`==`, so number literals and strings exactly as in `new`).
///
/// Only `add`, `remove` and `replace`. Objects are compared member by member (in name order).
/// Arrays keep their common prefix and suffix; the items in between are compared pairwise, and
/// what one side has more is added or removed, so one item changed in a 10,000-item array gives
/// the operations of that item alone (an array emptied or filled is replaced whole). A value of another kind, or a different scalar, is
/// replaced whole; equal values give no operation.
public func diff(_ old: JSON, _ new: JSON) -> [PatchOperation] {
    var differ = Differ<JSON>(maxOperations: .max)
    differ.compare(old, new)
    return differ.operations
}

/// ``diff(_:_:)``, or nil as soon as it would take more than `maxOperations` operations: for a
/// caller that has no use for a large patch (every operation takes at least 25 bytes of JSON,
/// `{"op":"remove","path":""}`, so a patch of more than n / 25 operations is longer than n bytes).
public func diff(_ old: JSON, _ new: JSON, maxOperations: Int) -> [PatchOperation]? {
    var differ = Differ<JSON>(maxOperations: maxOperations)
    differ.compare(old, new)
    return differ.exceeded ? nil : differ.operations
}

/// A value as ``Differ`` reads it: a ``JSON`` tree, or a value in a canonical text
/// (``CanonicalValue``), so that both diffs are one walk and give the same operations.
protocol DiffValue {
    /// A member's name as the value holds it.
    associatedtype Name
    associatedtype Failure: Error

    /// Whether the two values are equal (`==`).
    func isSame(as other: Self) -> Bool
    var isObject: Bool { get }
    var isArray: Bool { get }
    /// An object's members, sorted by name.
    func members() throws(Failure) -> [(name: Name, value: Self)]
    /// An array's items.
    func elements() throws(Failure) -> [Self]
    /// The value as a tree (what an operation carries).
    func json() throws(Failure) -> JSON
    /// The order of two names, by their UTF-8 bytes.
    static func order(_ left: Name, _ right: Name) throws(Failure) -> JSONObject.Ordering
    static func string(_ name: Name) throws(Failure) -> String
}

extension JSON: DiffValue {
    func isSame(as other: JSON) -> Bool { self == other }

    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    var isArray: Bool {
        if case .array = self { return true }
        return false
    }

    func members() -> [(name: String, value: JSON)] {
        guard case .object(let object) = self else { return [] }
        return object.members.map { ($0.key, $0.value) }
    }

    func elements() -> [JSON] {
        guard case .array(let items) = self else { return [] }
        return items
    }

    func json() -> JSON { self }

    static func order(_ left: String, _ right: String) -> JSONObject.Ordering { JSONObject.compare(left, right) }

    static func string(_ name: String) -> String { name }
}

/// Walks two values side by side, keeping the path of where it is.
struct Differ<Value: DiffValue> {
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

    mutating func compare(_ old: Value, _ new: Value) throws(Value.Failure) {
        guard !exceeded else { return }
        if old.isObject && new.isObject {
            try compareObjects(old, new)
        } else if old.isArray && new.isArray {
            try compareArrays(old, new)
        } else if !old.isSame(as: new) {
            emit(.replace(path: pointer, value: try new.json()))
        }
    }

    private mutating func compareObjects(_ old: Value, _ new: Value) throws(Value.Failure) {
        let before = try old.members()
        let after = try new.members()
        var i = 0
        var j = 0
        while i < before.count || j < after.count, !exceeded {
            let order: JSONObject.Ordering
            if i == before.count {
                order = .orderedDescending
            } else if j == after.count {
                order = .orderedAscending
            } else {
                order = try Value.order(before[i].name, after[j].name)
            }
            switch order {
            case .orderedAscending:  // only in old
                emit(.remove(path: pointer.appending(try Value.string(before[i].name))))
                i += 1
            case .orderedDescending:  // only in new
                emit(.add(path: pointer.appending(try Value.string(after[j].name)), value: try after[j].value.json()))
                j += 1
            case .orderedSame:
                if !before[i].value.isSame(as: after[j].value) {
                    path.append(try Value.string(after[j].name))
                    try compare(before[i].value, after[j].value)
                    path.removeLast()
                }
                i += 1
                j += 1
            }
        }
    }

    private mutating func compareArrays(_ oldArray: Value, _ newArray: Value) throws(Value.Failure) {
        let old = try oldArray.elements()
        let new = try newArray.elements()
        if old.isEmpty != new.isEmpty {
            // Emptied or filled: one replace says it in fewer bytes than an op per item.
            emit(.replace(path: pointer, value: try newArray.json()))
            return
        }
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix].isSame(as: new[prefix]) {
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix].isSame(as: new[new.count - 1 - suffix]) {
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
        // Indexes after the pairs: the rest of new's middle goes in before the common suffix, or
        // the rest of old's middle comes out, each removal moving the next item to that index.
        let start = prefix + paired
        for offset in 0..<(newMiddle - paired) where !exceeded {
            emit(.add(path: pointer.appending(String(start + offset)), value: try new[start + offset].json()))
        }
        let removal = pointer.appending(String(start))
        for _ in 0..<(oldMiddle - paired) where !exceeded {
            emit(.remove(path: removal))
        }
    }
}
