/// What the per-request slot (`*con_cls`) holds between calls of the access handler.
enum RequestSlot {
    /// The first call: nothing stored yet.
    case fresh
    /// The first call, for a request whose query ``QueryLimit`` refused before libmicrohttpd
    /// parsed it (stored by ``requestTargetReceived``).
    case queryRefused
    /// Headers were seen and no body has arrived (most requests: no allocation at all).
    case headersSeen
    /// A body is arriving.
    case body(RequestBody)

    /// A non-null value that is never a valid object address (objects are 16-byte aligned);
    /// libmicrohttpd only stores and hands back the pointer, it never dereferences it.
    private static let headersSeenMarker = 1
    /// Like ``headersSeenMarker``: never a valid object address.
    private static let queryRefusedMarker = 2

    /// What ``requestTargetReceived`` returns for a refused query: libmicrohttpd stores it as the
    /// request's slot before the access handler's first call.
    static var queryRefusedValue: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: queryRefusedMarker)
    }

    init(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else {
            self = .fresh
            return
        }
        switch Int(bitPattern: pointer) {
        case Self.headersSeenMarker:
            self = .headersSeen
        case Self.queryRefusedMarker:
            self = .queryRefused
        default:
            self = .body(Unmanaged<RequestBody>.fromOpaque(pointer).takeUnretainedValue())
        }
    }

    /// Stores the marker for "headers seen".
    static func markHeadersSeen(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        slot.pointee = UnsafeMutableRawPointer(bitPattern: headersSeenMarker)
    }

    /// Stores `body`, retained until ``release(_:)``.
    static func store(_ body: RequestBody, in slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        slot.pointee = Unmanaged.passRetained(body).toOpaque()
    }

    /// Releases whatever the slot holds and clears it; called once, when the request completes.
    static func release(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        if case .body(let body) = RequestSlot(slot.pointee) {
            Unmanaged.passUnretained(body).release()
        }
        slot.pointee = nil
    }
}
