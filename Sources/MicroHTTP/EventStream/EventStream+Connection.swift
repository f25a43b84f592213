internal import CMicroHTTPD

extension EventStream: SocketReadinessHandler {
    /// How much libmicrohttpd allocates with each stream response for identity (HTTP/1.0)
    /// transfers; chunked transfers write straight into the connection's buffer instead.
    static let responseBlockSize = 1024

    /// Binds the stream to the connection that will carry it; `false` if it already was.
    ///
    /// - Parameter chunked: whether libmicrohttpd will send the body as HTTP/1.1 chunks; only
    ///   then are sends written straight to the socket while the connection waits.
    func attach(to connection: OpaquePointer, server: ServerCore, chunked: Bool) -> Bool {
        let attached = state.withLock { state in
            guard !state.wasAttached else { return false }
            state.wasAttached = true
            let socket = cmhd_connection_socket(connection)
            let handle = ConnectionHandle(pointer: connection, socket: socket)
            if socket >= 0, server.streamSendBufferBytes > 0 {
                handle.limitSendBuffer(to: server.streamSendBufferBytes)
            }
            state.connection = handle
            state.allowsDirectWrites = chunked && socket >= 0 && server.allowsDirectStreamWrites
            state.server = server
            return true
        }
        guard attached else { return false }
        if !server.streams.insert(self) {
            end(.serverShutdown, discardingBacklog: false)
        }
        return true
    }

    /// The content reader: fills `buffer` from the backlog, ends the response, or suspends
    /// the connection until the next send. Runs on the connection's thread.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let (result, roomWaiter) = state.withLock { state in
            let result = read(into: buffer, state: &state)
            return (result, state.takeRoomWaiter())
        }
        roomWaiter?()
        return result
    }

    /// ``read(into:)`` with the lock held.
    private func read(into buffer: UnsafeMutableRawBufferPointer, state: inout StreamState) -> Int {
        assert(state.unfinishedChunk == nil, "resumed before a direct write finished its chunk")
        if state.isBroken {
            return cmhd_content_reader_end_with_error()
        }
        if !state.backlog.isEmpty {
            state.server?.writeCounters.countThroughLibmicrohttpd()
            let taken = state.backlog.dequeue(into: buffer)
            state.deliveredBytes += taken
            return taken
        }
        switch state.termination {
        case nil:
            break
        case .overflow, .stalled:
            // Also when the overflow came before the stream was attached.
            state.connection?.abort()
            return cmhd_content_reader_end_with_error()
        case .closed, .serverShutdown, .clientGone:
            // A clean end of the chunked body. (Not an error end: libmicrohttpd would
            // close the socket, and with MHD_USE_TURBO that close can wait for the
            // worker's next wake-up, leaving the client hanging.)
            return cmhd_content_reader_end_of_stream()
        }
        guard let connection = state.connection else {
            return cmhd_content_reader_end_with_error()
        }
        if state.allowsDirectWrites, !state.isSocketPrepared {
            state.isSocketPrepared = true
            connection.disableSendDelays()
        }
        // Returning 0 without suspending would make libmicrohttpd call again at once.
        // From here until it is resumed, libmicrohttpd has nothing buffered for this
        // connection and leaves its socket alone: sends may write to it directly.
        state.isSuspended = true
        MHD_suspend_connection(connection.pointer)
        state.watchWhileSuspended(owner: self)
        return 0
    }

    /// The ``SocketWatcher`` saw the suspended connection's socket ready: the client hung up
    /// (the stream ends at once), or there is room for the rest of an unfinished chunk.
    func socketReady(_ readiness: SocketInterest) {
        let (handlers, roomWaiter) = state.withLock { ($0.socketReady(readiness, owner: self), $0.takeRoomWaiter()) }
        handlers.forEach { $0(.clientGone) }
        roomWaiter?()
    }

    /// Cuts the stream off (``Termination/stalled``) if bytes have been waiting since the
    /// previous call and none reached the client; the heartbeat calls it once per beat.
    func cutOffIfStalled() {
        let handlers = state.withLock { state in
            state.hasStalledSinceLastCheck() ? state.end(.stalled, discardingBacklog: true) : []
        }
        handlers.forEach { $0(.stalled) }
    }

    /// Gives up a direct write still waiting for a stalled client, so that libmicrohttpd gets
    /// the connection back and can close it (for shutdown, once the grace period is over).
    func abandonUnfinishedWrite() {
        state.withLock { state in
            if state.unfinishedChunk != nil {
                state.breakConnection()
            }
        }
    }

    /// libmicrohttpd is done with the response (completed, client gone, or server stopping).
    func responseReleased() {
        let (handlers, server) = state.withLock { state in
            state.abandonUnfinishedChunk()
            state.stopWatching()
            state.isSuspended = false
            state.connection = nil
            let handlers = state.end(.clientGone, discardingBacklog: true)
            state.backlog.removeAll()
            defer { state.server = nil }
            return (handlers, state.server)
        }
        server?.streams.remove(self)
        handlers.forEach { $0(.clientGone) }
    }
}

/// `MHD_ContentReaderCallback` for stream responses; `cls` is the retained ``EventStream``.
func eventStreamReader(
    _ cls: UnsafeMutableRawPointer?,
    _ position: UInt64,
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ capacity: Int
) -> Int {
    guard let cls, let buffer else { return cmhd_content_reader_end_with_error() }
    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
}

/// `MHD_ContentReaderFreeCallback` for stream responses: balances the retain taken when the
/// response was created.
func eventStreamReleased(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let unmanaged = Unmanaged<EventStream>.fromOpaque(cls)
    unmanaged.takeUnretainedValue().responseReleased()
    unmanaged.release()
}
