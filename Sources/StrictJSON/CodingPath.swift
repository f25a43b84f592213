/// A coding path as a chain of keys that share their parents: appending a key costs one small
/// object, and the array of keys `Decoder.codingPath` hands out is built only when asked for (an
/// error's context, a type that reads its path).
struct CodingPath {
    private final class Link {
        let parent: Link?
        let key: any CodingKey
        let depth: Int

        init(parent: Link?, key: any CodingKey) {
            self.parent = parent
            self.key = key
            depth = (parent?.depth ?? 0) + 1
        }
    }

    private let last: Link?

    /// The path of the document's value: no keys.
    static var root: CodingPath { CodingPath(last: nil) }

    private init(last: Link?) {
        self.last = last
    }

    /// This path with `key` after its last key.
    func appending(_ key: any CodingKey) -> CodingPath {
        CodingPath(last: Link(parent: last, key: key))
    }

    /// This path with `key` after its last key, or this path when `key` is nil.
    func appending(_ key: (any CodingKey)?) -> CodingPath {
        key.map { appending($0) } ?? self
    }

    /// The keys, outermost first.
    var keys: [any CodingKey] {
        guard let last else { return [] }
        var keys = [any CodingKey]()
        keys.reserveCapacity(last.depth)
        var link: Link? = last
        while let current = link {
            keys.append(current.key)
            link = current.parent
        }
        return keys.reversed()
    }
}

/// The coding keys the decoder makes itself: an array element's position (`Index 2`, as
/// `JSONDecoder` names it), and `super`.
struct JSONKey: CodingKey {
    private let name: String?
    let intValue: Int?

    var stringValue: String {
        name ?? "Index \(intValue ?? 0)"
    }

    init(index: Int) {
        name = nil
        intValue = index
    }

    init?(stringValue: String) {
        name = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }

    /// The key of `superDecoder()`.
    static let `super` = JSONKey(name: "super")

    private init(name: String) {
        self.name = name
        intValue = nil
    }
}
