/// A JSON text read once by ``StrictJSONReader`` into a flat list of nodes, in text order: what
/// ``StrictJSONDecoder`` decodes from without reading the text again.
///
/// A container's node is followed by its elements (an object's by name and value nodes, in
/// turns); it records how many elements it has and where the node after it is, so a value can be
/// skipped without visiting what it holds. Strings and numbers are byte ranges of the text, their
/// escapes and digits left for the decoder to resolve when (if) a value is asked for.
struct JSONTape {
    /// What a node is.
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// One value, member name, or container of the text.
    struct Node {
        let kind: Kind
        /// For a string: whether it holds escapes (bit 0) and whether it is all ASCII (bit 1).
        let flags: UInt8
        /// A string's or number's first byte; a container's element count (members for an object).
        var start: Int
        /// A string's or number's end byte; for a container, the index of the node after it.
        var end: Int

        static let hasEscapes: UInt8 = 1
        static let isASCII: UInt8 = 2
    }

    /// Every node, the document's value first; the last one is an extra `null` (``nullIndex``).
    private(set) var nodes: [Node]

    /// A `null` outside the document, for a decoder of an absent value (`superDecoder()`).
    var nullIndex: Int { nodes.count - 1 }

    /// Reads `bytes` with the strict reader's rules; throws at the first rule the text breaks.
    init(
        reading bytes: UnsafeBufferPointer<UInt8>,
        maximumDepth: Int,
        names: StrictJSONReader.NameRule
    ) throws(StrictJSONError) {
        var reader = StrictJSONReader(bytes, maximumDepth: maximumDepth, names: names)
        var nodes: [Node] = []
        nodes.reserveCapacity(16)
        // The innermost open container; while open, a container's `end` holds the one around it.
        var open = -1
        func append(_ node: Node) {
            if open >= 0 { nodes[open].start += 1 }
            nodes.append(node)
        }
        while let token = try reader.next() {
            switch token {
            case .objectStart, .arrayStart:
                let kind: Kind
                if case .objectStart = token { kind = .object } else { kind = .array }
                append(Node(kind: kind, flags: 0, start: 0, end: open))
                open = nodes.count - 1
            case .objectEnd, .arrayEnd:
                let container = open
                open = nodes[container].end
                nodes[container].end = nodes.count
            case .name(let name):
                nodes.append(Self.node(name))  // a name is not an element: its value is
            case .string(let string):
                append(Self.node(string))
            case .number(let literal):
                append(Node(kind: .number, flags: 0, start: literal.startIndex, end: literal.endIndex))
            case .bool(let value):
                append(Node(kind: value ? .true : .false, flags: 0, start: 0, end: 0))
            case .null:
                append(Node(kind: .null, flags: 0, start: 0, end: 0))
            }
        }
        nodes.append(Node(kind: .null, flags: 0, start: 0, end: 0))
        self.nodes = nodes
    }

    /// The index of the node after the value at `index` (and after everything it holds).
    func after(_ index: Int) -> Int {
        let node = nodes[index]
        switch node.kind {
        case .object, .array: return node.end
        default: return index + 1
        }
    }

    /// Calls `body` with the name node and the value node of each member of the object at
    /// `object` in turn, while it returns true.
    func forEachMember(of object: Int, _ body: (_ name: Int, _ value: Int) -> Bool) {
        let end = nodes[object].end
        var member = object + 1
        while member < end {
            guard body(member, member + 1) else { return }
            member = after(member + 1)
        }
    }

    /// The string at `index` as the reader saw it, over `bytes` (the text this tape was read from).
    func string(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> JSONString {
        let node = nodes[index]
        return JSONString(
            raw: bytes[node.start..<node.end],
            hasEscapes: node.flags & Node.hasEscapes != 0,
            isASCII: node.flags & Node.isASCII != 0
        )
    }

    private static func node(_ string: JSONString) -> Node {
        let flags = (string.hasEscapes ? Node.hasEscapes : 0) | (string.isASCII ? Node.isASCII : 0)
        return Node(kind: .string, flags: flags, start: string.raw.startIndex, end: string.raw.endIndex)
    }
}
