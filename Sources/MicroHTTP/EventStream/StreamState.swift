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
///
/// Bytes reach the socket one of two ways. While the connection is suspended (libmicrohttpd
/// wrote everything it had and waits for us), a send is written straight to the socket as one
/// chunk ("direct"). Otherwise it is queued in `backlog` and libmicrohttpd takes it through
/// the content reader. A direct write the socket takes only in part leaves `unfinishedChunk`,
/// which must be written before anything else: the connection then stays suspended, the
/// server's ``WritableWatcher`` waits for the socket, and only when the chunk is finished is
/// the connection resumed (if anything queued meanwhile, or the stream ended).
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
    /// Whether libmicrohttpd frames this response as HTTP/1.1 chunks, so direct writes may
    /// continue it (they are not used for HTTP/1.0 responses). The server speaks plain HTTP;
    /// direct writes would bypass TLS if it were ever added.
    var allowsDirectWrites = false
    /// Whether the socket was set up for direct writes (done at the first suspension).
    var isSocketPrepared = false
    /// The rest of a chunk that a direct write began.
    var unfinishedChunk: ArraySlice<UInt8>?
    /// The ``WritableWatcher`` token while the socket is watched for `unfinishedChunk`.
    var watchToken: UInt64?
    /// A direct write failed or had to be given up: the reader ends the response with an
    /// error, so libmicrohttpd closes the connection.
    var isBroken = false

    /// Bytes accepted and not yet on the socket.
    var pendingByteCount: Int {
        backlog.byteCount + (unfinishedChunk?.count ?? 0)
    }

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
            abandonUnfinishedChunk()
            connection?.abort()
        } else if discardingBacklog {
            backlog.removeAll()
        }
        // Let the reader run once more: it flushes what is left and ends the response.
        resumeIfSuspended()
        defer { terminationHandlers = [] }
        return terminationHandlers
    }

    /// Hands the connection back to libmicrohttpd, unless a direct write still has to finish
    /// its chunk (the watcher resumes it then).
    mutating func resumeIfSuspended() {
        guard isSuspended, unfinishedChunk == nil, let connection else { return }
        isSuspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// Whether `send` may write straight to the socket now.
    var canWriteDirectly: Bool {
        allowsDirectWrites && isSuspended && !isBroken && unfinishedChunk == nil && backlog.isEmpty
            && connection != nil
    }

    /// Writes `bytes` as one chunk straight to the suspended connection's socket; whatever
    /// the socket does not take is queued, watched for, or ends the stream as broken.
    mutating func writeDirectly(_ bytes: [UInt8], owner: EventStream) {
        guard let connection else { return }
        switch connection.writeChunk(bytes) {
        case .written:
            server?.writeCounters.countDirect()
        case .wouldBlock:
            // libmicrohttpd waits for the socket and writes the backlog then.
            backlog.append(bytes)
            resumeIfSuspended()
        case .partial(let remainder):
            server?.writeCounters.countSplit()
            unfinishedChunk = remainder
            guard let watcher = server?.writableWatcher,
                let token = watcher.watch(owner, socket: connection.socket)
            else {
                breakConnection()
                return
            }
            watchToken = token
        case .failed:
            breakConnection()
        }
    }

    /// Goes on with an unfinished chunk now that the socket is writable (watcher thread).
    mutating func continueUnfinishedChunk() {
        guard isSuspended, let remainder = unfinishedChunk, let connection, let token = watchToken else { return }
        switch connection.writeRaw(remainder) {
        case .written:
            server?.writableWatcher.unwatch(token, socket: connection.socket)
            watchToken = nil
            unfinishedChunk = nil
            if !backlog.isEmpty || termination != nil {
                resumeIfSuspended()
            }
        case .partial(let rest):
            unfinishedChunk = rest
            fallthrough
        case .wouldBlock:
            if server?.writableWatcher.rearm(token, socket: connection.socket) != true {
                breakConnection()
            }
        case .failed:
            breakConnection()
        }
    }

    /// Gives up a direct write that cannot be finished (client gone, or shutdown cannot
    /// wait any longer): the response then ends with an error and the connection closes.
    mutating func breakConnection() {
        isBroken = true
        abandonUnfinishedChunk()
        resumeIfSuspended()
    }

    /// Drops the rest of a direct write and stops watching its socket.
    mutating func abandonUnfinishedChunk() {
        if let token = watchToken, let connection {
            server?.writableWatcher.unwatch(token, socket: connection.socket)
        }
        watchToken = nil
        if unfinishedChunk != nil {
            unfinishedChunk = nil
            isBroken = true  // the chunk on the wire can never be completed
        }
    }
}
