/// The body of one request as it arrives, in pieces, on the connection's thread.
///
/// Owned by libmicrohttpd's per-request slot (`*con_cls`) from the first body piece until
/// the request-completed notification releases it; only ever touched by the connection's
/// worker thread, so it needs no lock — and no run-time exclusivity checks on `bytes` (one
/// `swift_beginAccess` per piece and per read, about 120 instructions each): one thread, and no
/// access to it overlaps another.
final class RequestBody {
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    /// Bytes received so far, kept or not.
    private(set) var received = 0
    /// Whether the body passed the limit; from then on pieces are counted and dropped.
    private(set) var isTooLarge = false
    /// The response the suspended connection waits for, once the responder deferred it.
    var pending: PendingResponse?
    /// Headers the responder set on the pending response itself (e.g. CORS): added to the
    /// completed response.
    var pendingHeaders: HTTPHeaders {
        get { pendingHeadersIfSet ?? HTTPHeaders() }
        set { pendingHeadersIfSet = newValue }
    }
    /// Made only when the responder sets one: empty headers reserve room for eight fields.
    private var pendingHeadersIfSet: HTTPHeaders?

    /// The most a body reserves before its bytes arrive: a head's `Content-Length` is a claim, and
    /// thousands of connections declaring the limit would otherwise hold it each while sending
    /// nothing. Larger bodies grow as they arrive.
    static var reservationLimit: Int { 64 << 10 }

    init(expectedLength: UInt64?, limit: Int) {
        if let expectedLength {
            bytes.reserveCapacity(Int(min(expectedLength, UInt64(min(limit, Self.reservationLimit)))))
        }
    }

    func append(_ piece: UnsafeRawBufferPointer, limit: Int) {
        received += piece.count
        guard !isTooLarge else { return }
        guard received <= limit else {
            isTooLarge = true
            bytes = []
            return
        }
        bytes.append(contentsOf: piece)
    }

    /// Refuses the body before any of it arrived (its declared length is over the limit): it is
    /// counted and dropped.
    func refuse() {
        isTooLarge = true
        bytes = []
    }

    func takeBytes() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
