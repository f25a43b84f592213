internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A libmicrohttpd connection handle held by a stream, with the connection's socket.
///
/// Unchecked because it is a raw C pointer: the stream only uses it under its lock, to call
/// `MHD_suspend_connection` from the connection's own thread (inside the reader) and
/// `MHD_resume_connection` (safe from any thread) on a connection it knows is suspended.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The socket, for cutting off an overflowing client (`-1` if unknown).
    let socket: Int32

    /// Cuts the connection off at once, from any thread: the queued bytes in the kernel are
    /// discarded (linger 0 turns the eventual close into a reset) and both directions are
    /// shut, which wakes libmicrohttpd to close the connection.
    ///
    /// Safe against descriptor reuse as long as the stream still holds this handle (under its
    /// lock): libmicrohttpd releases the response, which clears the handle, before it closes
    /// the socket.
    func abort() {
        guard socket >= 0 else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = shutdown(socket, Int32(SHUT_RDWR))
    }
}

/// The mutable part of an ``EventStream``, guarded by its mutex.
struct StreamState: Sendable {
    var backlog = ChunkQueue()
    var termination: EventStream.Termination?
    var terminationHandlers: [@Sendable (EventStream.Termination) -> Void] = []
    /// Set from attachment until libmicrohttpd releases the response.
    var connection: ConnectionHandle?
    /// The server that attached the stream, to unregister it when the response is released.
    var server: ServerCore?
    var wasAttached = false
    /// Whether the reader suspended the connection and nobody resumed it yet.
    var isSuspended = false

    /// Marks the stream ended (first reason wins) and returns the handlers to run, unlocked.
    mutating func end(
        _ reason: EventStream.Termination,
        discardingBacklog: Bool
    ) -> [@Sendable (EventStream.Termination) -> Void] {
        guard termination == nil else { return [] }
        termination = reason
        if reason == .overflow {
            // A client this far behind is cut off now, not when it next reads: that frees the
            // kernel's send queue too, which may hold megabytes.
            backlog.removeAll()
            connection?.abort()
        } else if discardingBacklog {
            backlog.removeAll()
        }
        // Let the reader run once more: it flushes what is left and ends the response.
        resumeIfSuspended()
        defer { terminationHandlers = [] }
        return terminationHandlers
    }

    mutating func resumeIfSuspended() {
        guard isSuspended, let connection else { return }
        isSuspended = false
        MHD_resume_connection(connection.pointer)
    }
}
