internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The largest query a request may carry, in the terms of the connection's memory pool.
///
/// libmicrohttpd 0.9.75 parses the query into the connection's pool as soon as the request line
/// is in: one record of ``bytesPerParameter`` bytes per parameter, beside the request head it
/// read into the same pool. When the pool runs out there, it queues its own `431`, but the
/// parser's result is ignored and the request goes on being read while nothing is sent: the
/// client waits until the server's request-head timeout closes the connection
/// (`docs/libmicrohttpd-errors.md`). About 241 short parameters (a 1 KB query) did that at a
/// 16 KiB pool. So the query is weighed before libmicrohttpd parses it, and one that would take
/// more than half the pool (the other half is for the header fields and the reply head) is not
/// parsed at all and is answered `414` (``RequestFailure/queryTooLarge(limit:)``).
struct QueryLimit: Sendable, Equatable {
    /// What libmicrohttpd 0.9.75 takes from the pool for each query parameter: a
    /// `struct MHD_HTTP_Header` (seven words, `internal.h`) rounded up to the pool's 16-byte
    /// alignment (`ALIGN_SIZE` in `memorypool.c`).
    static let bytesPerParameter = 64

    /// The most a request target with a query may weigh: its length plus ``bytesPerParameter``
    /// per parameter.
    let maxBytes: Int

    /// The limit for connections whose pool holds `connectionMemoryLimit` bytes.
    init(connectionMemoryLimit: Int) {
        maxBytes = max(0, connectionMemoryLimit / 2)
    }

    /// What a target of `length` bytes weighs in the pool: its length (it sits in the pool's read
    /// buffer) plus a record per parameter of its query (parameters are separated by `&`; an
    /// empty one still takes a record).
    static func weight(length: Int, query: UnsafePointer<CChar>) -> Int {
        var parameters = 1
        var cursor = query
        while let ampersand = strchr(cursor, Int32(UInt8(ascii: "&"))) {
            parameters += 1
            cursor = UnsafePointer(ampersand) + 1
        }
        return length + parameters * bytesPerParameter
    }

    /// Whether the query of `target` (the bytes after its first `?`) is over the limit.
    func refuses(target: UnsafePointer<CChar>, query: UnsafePointer<CChar>) -> Bool {
        let length = strlen(target)
        // Cheap first: a target this short cannot hold enough parameters to be over the limit.
        guard length * (Self.bytesPerParameter + 1) + Self.bytesPerParameter > maxBytes else { return false }
        return Self.weight(length: length, query: query) > maxBytes
    }
}

/// `MHD_OPTION_URI_LOG_CALLBACK`: the request target, called on the connection's worker thread
/// as soon as the request line is in and before libmicrohttpd parses the query. What it returns
/// becomes the request's slot (`*con_cls`).
///
/// A query over the ``QueryLimit`` is cut off where libmicrohttpd will begin to parse it (its
/// first byte becomes the end of the string), so libmicrohttpd parses no parameter and the pool
/// is left for the header fields and the answer; the slot says the query was refused, and the
/// access handler's first call answers `414`. The target is libmicrohttpd's read buffer, which
/// it writes itself (it ends the path at the `?` right after this callback); the byte written is
/// inside the string passed in.
func requestTargetReceived(
    _ cls: UnsafeMutableRawPointer?,
    _ target: UnsafePointer<CChar>?,
    _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls, let target, let question = strchr(target, Int32(UInt8(ascii: "?"))) else { return nil }
    let query = question + 1
    guard query.pointee != 0 else { return nil }
    let server = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard server.queryLimit.refuses(target: target, query: query) else { return nil }
    query.pointee = 0
    return RequestSlot.queryRefusedValue
}
