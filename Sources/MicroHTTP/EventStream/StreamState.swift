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
        do {
            try Posix.setOption(socket, level: SOL_SOCKET, SO_LINGER, to: linger(l_onoff: 1, l_linger: 0), label: "SO_LINGER")
        } catch {
            // Without linger 0 the close ends in a FIN after the queued bytes: the shutdown
            // below still cuts the client off.
        }
        do {
            try Posix.shutdownBoth(socket)
        } catch {
            // ENOTCONN: the peer reset the connection already; libmicrohttpd closes its side.
        }
    }
}

/// Who waits for room in a stream's backlog, and how little must be pending.
struct RoomWaiter: Sendable {
    let threshold: Int
    let handler: @Sendable () -> Void
}

/// The mutable part of an ``EventStream``, guarded by its mutex.
///
/// Bytes reach the socket one of two ways. While the connection is suspended (libmicrohttpd
/// wrote everything it had and waits for us), a send is written straight to the socket as one
/// chunk ("direct"). Otherwise it is queued in `backlog` and libmicrohttpd takes it through
/// the content reader. A direct write the socket takes only in part leaves `unfinishedChunk`,
/// which must be written before anything else: the connection then stays suspended, the
/// server's ``SocketWatcher`` waits for the socket, and only when the chunk is finished is
/// the connection resumed (if anything queued meanwhile, or the stream ended).
///
/// While suspended, the socket is also watched for the client hanging up, which libmicrohttpd
/// cannot see then: the stream ends at once and the connection slot is freed.
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
    var unfinishedChunk: UnfinishedChunk?
    /// The ``SocketWatcher`` token while the suspended connection's socket is watched.
    var watchToken: UInt64?
    /// A direct write failed or had to be given up, or the client hung up: the reader ends the
    /// response with an error, so libmicrohttpd closes the connection.
    var isBroken = false
    /// Bytes handed to the socket or to libmicrohttpd so far: the heartbeat compares it between
    /// beats to find clients that stopped reading.
    var deliveredBytes = 0
    /// `deliveredBytes` at the previous stall check.
    var deliveredAtLastCheck = 0
    /// A producer waiting for the backlog to shrink (``EventStream/whenPending(atMost:_:)``).
    var roomWaiter: RoomWaiter?

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
        if reason == .overflow || reason == .stalled {
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
        guard let waiter = takeRoomWaiter() else { return terminationHandlers }
        // A producer waiting for room learns of the end too (and sends nothing more).
        return terminationHandlers + [{ _ in waiter() }]
    }

    /// The room waiter's handler, taken (to call unlocked) if the backlog has shrunk to its
    /// threshold or the stream has ended; nil otherwise, and whenever nobody waits.
    mutating func takeRoomWaiter() -> (@Sendable () -> Void)? {
        guard let waiter = roomWaiter, termination != nil || pendingByteCount <= waiter.threshold else { return nil }
        roomWaiter = nil
        return waiter.handler
    }

    /// Called by the reader right after it suspended the connection: watch the socket for the
    /// client hanging up (and for room, if a chunk is unfinished) until the connection resumes.
    mutating func watchWhileSuspended(owner: EventStream) {
        guard watchToken == nil else { return }
        watch(owner: owner)
    }

    /// Hands the connection back to libmicrohttpd, unless a direct write still has to finish
    /// its chunk (the watcher resumes it then). The socket stops being watched first: from the
    /// resume on, libmicrohttpd owns it and may close it.
    mutating func resumeIfSuspended() {
        guard isSuspended, unfinishedChunk == nil, let connection else { return }
        stopWatching()
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
            deliveredBytes += bytes.count
            server?.writeCounters.countDirect()
        case .wouldBlock:
            // libmicrohttpd waits for the socket and writes the backlog then.
            backlog.append(bytes)
            resumeIfSuspended()
        case .partial(let remainder):
            deliveredBytes += bytes.count - min(bytes.count, remainder.count)
            server?.writeCounters.countSplit()
            unfinishedChunk = remainder
            watch(owner: owner)
        case .failed:
            breakConnection()
        }
    }

    /// The watcher saw the socket ready: the client hung up, or there is room for the rest of
    /// the unfinished chunk. Returns the termination handlers to run, unlocked.
    mutating func socketReady(_ readiness: SocketInterest, owner: EventStream) -> [@Sendable (EventStream.Termination) -> Void] {
        guard isSuspended, watchToken != nil else { return [] }
        if readiness.contains(.hangUp) {
            // Nothing more can reach this client: end now, so the slot is free at once.
            abandonUnfinishedChunk()
            isBroken = true
            let handlers = end(.clientGone, discardingBacklog: true)
            resumeIfSuspended()
            return handlers
        }
        if readiness.contains(.writable) {
            continueUnfinishedChunk(owner: owner)
        } else {
            watch(owner: owner)
        }
        return []
    }

    /// Goes on with an unfinished chunk now that the socket is writable (watcher thread).
    private mutating func continueUnfinishedChunk(owner: EventStream) {
        guard let remainder = unfinishedChunk, let connection else {
            watch(owner: owner)
            return
        }
        switch connection.writeRemainder(remainder) {
        case .written:
            deliveredBytes += remainder.count
            unfinishedChunk = nil
            if !backlog.isEmpty || termination != nil {
                resumeIfSuspended()
            } else {
                watch(owner: owner)
            }
        case .partial(let rest):
            deliveredBytes += remainder.count - rest.count
            unfinishedChunk = rest
            watch(owner: owner)
        case .wouldBlock:
            watch(owner: owner)
        case .failed:
            breakConnection()
        }
    }

    /// Registers (or re-arms) the socket with the server's watcher: for a hang-up always, and for
    /// room while a chunk is unfinished. A socket that cannot be watched while a chunk waits is
    /// given up; without a pending chunk, only the early hang-up notice is lost (the heartbeat
    /// still finds a client that left).
    private mutating func watch(owner: EventStream) {
        guard let connection, connection.socket >= 0, let watcher = server?.socketWatcher else {
            if unfinishedChunk != nil { breakConnection() }
            return
        }
        let interest: SocketInterest = unfinishedChunk == nil ? .hangUp : [.hangUp, .writable]
        if let token = watchToken {
            if watcher.rearm(token, socket: connection.socket, for: interest) { return }
            stopWatching()
        } else if let token = watcher.watch(owner, socket: connection.socket, for: interest) {
            watchToken = token
            return
        }
        if unfinishedChunk != nil { breakConnection() }
    }

    /// Ends the socket's watch, if any; the socket must still be open.
    mutating func stopWatching() {
        if let token = watchToken, let connection {
            server?.socketWatcher.unwatch(token, socket: connection.socket)
        }
        watchToken = nil
    }

    /// Gives up a direct write that cannot be finished (client gone, or shutdown cannot
    /// wait any longer): the response then ends with an error and the connection closes.
    mutating func breakConnection() {
        isBroken = true
        abandonUnfinishedChunk()
        resumeIfSuspended()
    }

    /// Drops the rest of a direct write.
    mutating func abandonUnfinishedChunk() {
        if unfinishedChunk != nil {
            unfinishedChunk = nil
            isBroken = true  // the chunk on the wire can never be completed
        }
    }

    /// For the heartbeat: whether bytes have been pending since the previous check without any
    /// reaching the client (it stopped reading). Starts the next check period.
    mutating func hasStalledSinceLastCheck() -> Bool {
        defer { deliveredAtLastCheck = deliveredBytes }
        return pendingByteCount > 0 && deliveredBytes == deliveredAtLastCheck
    }
}
