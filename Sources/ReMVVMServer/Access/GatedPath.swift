import MicroHTTP

/// What the access gate asks of a request's path, told from its UTF-8 bytes in one look: each
/// question asked of the `String` on its own (a prefix, an equality, the event-stream shapes)
/// cost 40–110 instructions, and a request with a token asked five of them.
struct GatedPath {
    /// Open to anyone (``AccessGate/isOpen(path:)``): `/healthz`, the inspector's and the thin
    /// client's files.
    let isOpen: Bool
    /// An event stream's path (``EventStreamPaths``).
    let isEventStream: Bool
    /// `GET /access`'s path (``AccessGate/accessPath``).
    let isAccess: Bool
    /// `/stores` or a path under it (``AccessGate/needs(of:limited:underStores:)``).
    let isUnderStores: Bool

    /// The answers for `path` (decoded, without the query).
    init(_ path: String) {
        if let gated = path.utf8.withContiguousStorageIfAvailable({ GatedPath(path: path, bytes: $0) }) {
            self = gated
        } else {
            // A bridged string without contiguous UTF-8 (never a request's path).
            self = Array(path.utf8).withUnsafeBufferPointer { GatedPath(path: path, bytes: $0) }
        }
    }

    private init(path: String, bytes: UnsafeBufferPointer<UInt8>) {
        // The byte after the first slash tells most paths apart.
        var isOpen = false
        var isAccess = false
        switch bytes.count > 1 ? bytes[1] : 0 {
        case UInt8(ascii: "h"):
            isOpen = bytes[...].equals("/healthz")
        case UInt8(ascii: "i"):
            isOpen = InspectorAssets.isAsset(path: path, bytes: bytes)
        case UInt8(ascii: "a"):
            isOpen = AppAssets.isAsset(path: path, bytes: bytes)
            isAccess = !isOpen && bytes[...].equals(AccessGate.accessLiteral)
        default:
            break
        }
        self.isOpen = isOpen
        self.isAccess = isAccess
        isUnderStores = bytes[...].starts(with: "/stores")
        isEventStream = EventStreamPaths.contains(bytes: bytes)
    }
}
