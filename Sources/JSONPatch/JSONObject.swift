/// The members of a JSON object, kept sorted by name (by the names' UTF-8 bytes, which is code
/// point order), each name once.
///
/// Sorted members make lookups a binary search, let ``diff(_:_:)`` walk two objects side by
/// side, and give ``JSON/canonicalBytes`` its key order for free.
public struct JSONObject: Sendable, Equatable {
    /// One name and its value.
    public struct Member: Sendable, Equatable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSON

        /// Creates a member.
        public init(key: String, value: JSON) {
            self.key = key
            self.value = value
        }

        /// Equal names (by code points) and exactly equal values.
        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.key.hasSameCodePoints(as: rhs.key) && lhs.value == rhs.value
        }
    }

    /// The members, sorted by name.
    public private(set) var members: [Member]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object of `members` that are already sorted by name with no name twice (the parser
    /// checks this before it calls it).
    init(sortedMembers members: [Member]) {
        self.members = members
    }

    /// The number of members.
    public var count: Int { members.count }

    /// The member names, sorted.
    public var keys: [String] { members.map(\.key) }

    /// The value of the member named `key`; setting nil removes the member.
    public subscript(key: String) -> JSON? {
        get {
            let (index, found) = position(of: key)
            return found ? members[index].value : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): members[index].value = value
            case (true, nil): members.remove(at: index)
            case (false, let value?): members.insert(Member(key: key, value: value), at: index)
            case (false, nil): break
            }
        }
    }

    /// Removes the member named `key` and returns its value, or nil if there is none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSON? {
        let (index, found) = position(of: key)
        return found ? members.remove(at: index).value : nil
    }

    /// Runs `body` on the value of the member named `key` in place (no copy of it), or returns
    /// nil without calling `body` if there is no such member.
    mutating func withValue<Result, Failure: Error>(
        forKey key: String,
        _ body: (inout JSON) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let (index, found) = position(of: key)
        guard found else { return nil }
        return try body(&members[index].value)
    }

    /// Where `key` is, or would be inserted to keep the order.
    private func position(of key: String) -> (index: Int, found: Bool) {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            switch Self.compare(members[middle].key, key) {
            case .orderedAscending: low = middle + 1
            case .orderedDescending: high = middle
            case .orderedSame: return (middle, true)
            }
        }
        return (low, false)
    }

    /// The order of two names: by their UTF-8 bytes.
    static func compare(_ left: String, _ right: String) -> Ordering {
        let order = left.compareCodePoints(with: right)
        return order < 0 ? .orderedAscending : order > 0 ? .orderedDescending : .orderedSame
    }

    /// How two names are ordered.
    enum Ordering {
        case orderedAscending, orderedSame, orderedDescending
    }
}
