internal import CMicroHTTPD
import ConcurrencyKit
public import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An HTTP/1.1 server over libmicrohttpd: a few worker threads with epoll loops, replies from a
/// ``Responder``, and endless ``EventStream`` bodies that cost no thread while they wait.
public final class HTTPServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(Daemon)
        case stopping
        case stopped
    }

    /// A started daemon and what must be torn down with it.
    ///
    /// Unchecked: `daemon` is a C handle that is only passed to libmicrohttpd's thread-safe
    /// daemon calls (quiesce, stop) by the single thread that performs shutdown.
    private struct Daemon: @unchecked Sendable {
        let handle: OpaquePointer
        let listenSocket: ListenSocket
        let heartbeat: Heartbeat
        let context: Unmanaged<ServerCore>
    }

    private let configuration: HTTPServerConfiguration
    let core: ServerCore
    private let beforeEndingStreams: @Sendable () -> Void
    /// Waited on (until `.stopped`) by a concurrent ``shutdown(timeout:)``.
    private let lifecycle = Lock(Lifecycle.idle)
    private let boundPort = Atomic<Int>(0)

    /// Creates a server; nothing is bound until ``start()`` (or ``run()``).
    ///
    /// - Parameter beforeEndingStreams: called once by ``shutdown(timeout:)`` after the server
    ///   stopped taking requests and those running finished, before open event streams are ended:
    ///   where their producers send what they still hold (and may end the streams themselves).
    public convenience init(
        configuration: HTTPServerConfiguration,
        responder: any Responder,
        logger: Logger,
        beforeEndingStreams: @escaping @Sendable () -> Void = {}
    ) {
        self.init(
            configuration: configuration,
            responder: responder,
            logger: logger,
            beforeEndingStreams: beforeEndingStreams,
            libraryVersion: LibmicrohttpdVersion.loaded
        )
    }

    /// As the public initializer, with the libmicrohttpd version to assume (tests fake it).
    init(
        configuration: HTTPServerConfiguration,
        responder: any Responder,
        logger: Logger,
        beforeEndingStreams: @escaping @Sendable () -> Void = {},
        libraryVersion: String
    ) {
        self.configuration = configuration
        self.beforeEndingStreams = beforeEndingStreams
        core = ServerCore(responder: responder, logger: logger, configuration: configuration, libraryVersion: libraryVersion)
    }

    /// Whether sends to event streams may be written straight to the socket: the configuration's
    /// `directStreamWrites`, and a libmicrohttpd version they were verified against.
    public var usesDirectStreamWrites: Bool {
        core.allowsDirectStreamWrites
    }

    deinit {
        shutdown()
    }

    /// The port actually bound (useful with port 0); 0 before ``start()``.
    public var port: Int {
        boundPort.load(ordering: .relaxed)
    }

    /// The number of connections open right now (event streams included).
    public var openConnectionCount: Int {
        core.connections.count
    }

    /// Waits until `condition` holds, re-checking it whenever a connection opens or closes or an
    /// event stream is attached or removed (``openConnectionCount``, ``openStreamCount``); false
    /// after `timeout`. Blocks the calling thread: for tests and tools, not for responders.
    public func waitForOccupancy(timeout: Duration, until condition: () -> Bool) -> Bool {
        core.occupancyChanges.wait(timeout: timeout, until: condition)
    }

    /// Connections closed so far because their request head did not arrive in time.
    public var slowHeadCutOffCount: Int {
        core.connections.cutOffCount
    }

    /// Connections closed so far because their request body did not arrive in time.
    public var slowBodyCutOffCount: Int {
        core.connections.slowBodyCutOffCount
    }

    /// The number of event streams currently attached to connections.
    public var openStreamCount: Int {
        core.streams.count
    }

    /// The connections open right now that carry no event stream: those that may send requests.
    public var requestConnectionCount: Int {
        max(0, core.connections.count - core.streams.count)
    }

    /// How event-stream bytes have reached their sockets since the server started.
    public var streamWriteStatistics: EventStreamWriteStatistics {
        core.writeCounters.snapshot
    }

    /// Binds and starts serving; throws ``HTTPServerError`` (address in use, bad host, bad limits).
    public func start() throws {
        try lifecycle.withLock { (state: inout Lifecycle) throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(code: .alreadyStarted, message: "The server was already started")
            }
            let daemon = try startDaemon()
            boundPort.store(daemon.listenSocket.port, ordering: .relaxed)
            state = .running(daemon)
        }
        lifecycle.notifyAll()
        if let version = core.unverifiedLibraryVersion {
            core.logger.warning(
                "libmicrohttpd \(version) is not a version direct stream writes were verified against (\(LibmicrohttpdVersion.verifiedForDirectWrites.sorted().joined(separator: ", "))); event streams are written through libmicrohttpd instead (see docs/event-delivery.md)"
            )
        }
        core.logger.info("HTTP server listening on \(HTTPServerConfiguration.authority(host: configuration.host, port: port)) with \(configuration.workerThreads) worker threads")
    }

    /// Starts the server if it is idle; returns whether it is running now (false once it is
    /// stopping or stopped). For owners that may have started it already.
    public func startIfIdle() throws -> Bool {
        switch lifecycle.withLock({ $0 }) {
        case .idle:
            do {
                try start()
            } catch let error as HTTPServerError where error.code == .alreadyStarted {
                // Started by another caller in the meantime: fall through to its state.
            }
            return isRunning
        case .running:
            return true
        case .stopping, .stopped:
            return false
        }
    }

    private var isRunning: Bool {
        lifecycle.withLock { if case .running = $0 { true } else { false } }
    }

    /// Blocks until the server runs (true) or stops, or `timeout` passes (false).
    func waitUntilRunningOrStopped(timeout: Duration) -> Bool {
        lifecycle.withLock(waitingUntil: { state in
            switch state {
            case .idle: false
            case .running, .stopping, .stopped: true
            }
        }, timeout: timeout) { state, _ in
            if case .running = state { true } else { false }
        }
    }

    /// The configured limit of a graceful stop (used by ``run()``).
    var shutdownTimeout: Duration {
        configuration.shutdownTimeout
    }

    /// The first step of a graceful stop: new connections are refused, requests that reach the
    /// responder from now on are answered `503` with `Retry-After` and `Connection: close`, and
    /// this returns once no request is inside the responder (or after `timeout`; returns whether
    /// they all finished). Event streams stay open, so whatever those last requests caused can
    /// still be sent to them before ``shutdown(timeout:)`` ends them.
    ///
    /// Idempotent; callable from any thread except a server worker thread.
    @discardableResult
    public func stopTakingRequests(timeout: Duration = .seconds(5)) -> Bool {
        guard isRunning else { return true }
        if core.stopTakingRequests(timeout: timeout) {
            return true
        }
        core.logger.warning("Requests still running after \(timeout) of shutdown")
        return false
    }

    /// Stops gracefully and returns when done; idempotent, callable from any thread (e.g. one
    /// that handles signals; not from an async signal handler).
    ///
    /// Stops taking requests (``stopTakingRequests(timeout:)``, if not done yet), runs the
    /// `beforeEndingStreams` step given at init, ends every open ``EventStream`` (queued bytes are
    /// flushed, then the chunked terminator; termination reason
    /// ``EventStream/Termination/serverShutdown``), lets requests in flight finish for up to
    /// `timeout`, then closes whatever is left. A concurrent caller waits for the first one to
    /// finish. Do not call it from a responder or a termination handler running on a server
    /// worker thread: it waits for those threads.
    public func shutdown(timeout: Duration = .seconds(5)) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        stopTakingRequests(timeout: timeout)
        let daemon: Daemon? = lifecycle.withLock { state in
            switch state {
            case .running(let daemon):
                state = .stopping
                return daemon
            case .idle:
                state = .stopped
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        lifecycle.notifyAll()
        guard let daemon else {
            _ = lifecycle.wait(timeout: timeout + .seconds(1)) { if case .stopped = $0 { true } else { false } }
            return
        }
        beforeEndingStreams()

        // New connections are refused by the accept policy since stopTakingRequests. Not
        // MHD_quiesce_daemon: in 0.9.75 it races the worker threads, which also remove the
        // listening socket from their epoll sets, and MHD_PANICs (SIGABRT) when a worker was
        // first — seen with event streams being flushed at that moment. The listening socket
        // stays open until the daemon has stopped.
        let streams = core.beginDraining()
        stopWorker("heartbeat") { () throws(WorkerError) in try daemon.heartbeat.stop() }
        for stream in streams {
            stream.end(.serverShutdown, discardingBacklog: false)
        }
        if !core.waitUntilIdle(timeout: max(.zero, deadline - clock.now)) {
            core.logger.warning("Shutdown timed out with \(core.requestsInFlight) requests in flight; closing them")
            // A client that stopped reading mid-chunk keeps its connection suspended; give
            // those writes up so libmicrohttpd gets every connection back and closes it.
            for stream in streams {
                stream.abandonUnfinishedWrite()
            }
            // Requests waiting for a pending response that never came get a 503 now, and a
            // moment to send it.
            var unavailable = Response.text("Service Unavailable: the server is stopping\n", status: 503)
            unavailable.headers.add(name: "Retry-After", value: "1")
            core.pendingResponses.completeAll(with: unavailable)
            _ = core.waitUntilIdle(timeout: .milliseconds(500))
        }
        // No connection is suspended any more: every stream has ended (ended streams never
        // suspend), the unfinished direct writes were given up, pending responses were completed,
        // and streams attached from now on end at once.
        // MHD_stop_daemon closes the listening socket itself (it owns it, as the daemon was not
        // quiesced). Closing it again here would close whatever descriptor reused the number
        // meanwhile — another server's epoll or eventfd in the same process.
        MHD_stop_daemon(daemon.handle)
        // Every stream has been released, so nothing is watched any more.
        stopWorker("stream watcher") { () throws(WorkerError) in try core.socketWatcher.stop() }
        stopWorker("request-head deadlines") { () throws(WorkerError) in try core.connections.stop() }
        daemon.context.release()
        lifecycle.withLock { $0 = .stopped }
        lifecycle.notifyAll()
        let writes = core.writeCounters.snapshot
        if writes.direct + writes.split + writes.throughLibmicrohttpd > 0 {
            core.logger.notice(
                "event stream writes: direct \(writes.direct), split \(writes.split), libmicrohttpd \(writes.throughLibmicrohttpd)"
            )
        }
        core.logger.info("HTTP server stopped")
    }

    private func startDaemon() throws(HTTPServerError) -> Daemon {
        try configuration.validate()
        let limits = connectionLimits(openFileLimit: raiseOpenFileLimit())
        core.connectionLimit.store(limits.served, ordering: .relaxed)
        core.connectionHardLimit.store(limits.accepted, ordering: .relaxed)
        let socket = try ListenSocket.open(host: configuration.host, port: configuration.port)
        let heartbeat = Heartbeat(interval: configuration.heartbeatInterval, streams: core.streams)
        let context = Unmanaged.passRetained(core)
        // TURBO: measured ~5-10% more requests/s here, and with it libmicrohttpd notices a
        // client that closed right after its last bytes (without it, under edge-triggered
        // epoll, such a connection waits for the idle timeout).
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
        if socket.isIPv6 {
            flags |= MHD_USE_IPv6.rawValue
        }
        var options = cmhd_daemon_config(
            flags: flags,
            listen_socket: socket.descriptor,
            access_handler: accessHandler,
            access_handler_cls: context.toOpaque(),
            accept_policy: acceptPolicy,
            accept_policy_cls: context.toOpaque(),
            request_completed: requestCompleted,
            request_completed_cls: context.toOpaque(),
            uri_received: requestTargetReceived,
            uri_received_cls: context.toOpaque(),
            notify_connection: connectionNotified,
            notify_connection_cls: context.toOpaque(),
            per_ip_connection_limit: UInt32(configuration.perClientConnectionLimit),
            logger: daemonLog,
            logger_cls: context.toOpaque(),
            thread_pool_size: UInt32(configuration.workerThreads),
            unescape: percentDecode,
            // libmicrohttpd's own limit stops accept() (clients would hang in the backlog), so
            // it sits above ours; the accept policy closes connections before it is reached.
            connection_limit: UInt32(limits.accepted + 1),
            connection_memory_limit: configuration.connectionMemoryLimit,
            connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds)
        )
        guard let handle = cmhd_start_daemon(&options) else {
            socket.close()
            context.release()
            throw HTTPServerError(code: .daemonFailed, message: "libmicrohttpd could not start (see the log above)")
        }
        guard core.socketWatcher.start() else {
            MHD_stop_daemon(handle)  // closes the listening socket too
            context.release()
            throw HTTPServerError(code: .daemonFailed, message: "Could not start the stream writer thread")
        }
        do {
            try heartbeat.start()
        } catch {
            MHD_stop_daemon(handle)
            stopWorker("stream watcher") { () throws(WorkerError) in try core.socketWatcher.stop() }
            context.release()
            throw HTTPServerError(code: .daemonFailed, message: "Could not start the heartbeat thread: \(error)")
        }
        do {
            try core.connections.start()
        } catch {
            stopWorker("heartbeat") { () throws(WorkerError) in try heartbeat.stop() }
            MHD_stop_daemon(handle)
            stopWorker("stream watcher") { () throws(WorkerError) in try core.socketWatcher.stop() }
            context.release()
            throw HTTPServerError(code: .daemonFailed, message: "Could not start the request-head deadline thread: \(error)")
        }
        return Daemon(handle: handle, listenSocket: socket, heartbeat: heartbeat, context: context)
    }

    /// Stops one of the server's threads; one that does not stop in time is logged and left.
    private func stopWorker(_ role: String, _ stop: () throws(WorkerError) -> Void) {
        do {
            try stop()
        } catch {
            core.logger.error("stopping the \(role) thread: \(error)")
        }
    }

    /// Lifts the soft open-file limit to the hard one (every connection is a descriptor) and
    /// returns the limit now in force, or nil if it cannot be read.
    private func raiseOpenFileLimit() -> UInt64? {
        guard var limit = try? Posix.openFileLimit() else { return nil }
        guard limit.rlim_cur < limit.rlim_max else { return UInt64(limit.rlim_cur) }
        let previous = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        do {
            try Posix.setOpenFileLimit(limit)
        } catch {
            core.logger.debug("Could not raise the open-file limit from \(previous) to \(limit.rlim_max): \(error)")
            return UInt64(previous)
        }
        core.logger.debug("Raised the open-file limit from \(previous) to \(limit.rlim_max)")
        return UInt64(limit.rlim_max)
    }

    /// How many connections are served (more get 503) and accepted at all (more are closed at
    /// once): the configured limit plus an overflow of an eighth (at least 64) for the 503s,
    /// both lowered to fit the open-file limit. Past that limit accept() fails with EMFILE and
    /// libmicrohttpd pauses accepting; a reserve of descriptors stays free for the listening
    /// socket, epoll, logs and files.
    private func connectionLimits(openFileLimit: UInt64?) -> (served: Int, accepted: Int) {
        let configured = configuration.connectionLimit
        let wanted = configured + max(64, configured / 8)
        let reserve: UInt64 = 64
        guard let openFileLimit, openFileLimit > reserve else { return (configured, wanted) }
        let fitting = Int(min(openFileLimit - reserve, UInt64(Int.max / 2)))
        guard wanted > fitting else { return (configured, wanted) }
        let served = min(configured, max(1, fitting - max(64, fitting / 9)))
        core.logger.warning(
            "connectionLimit \(configured) and its overflow exceed what the open-file limit (\(openFileLimit)) allows; serving \(served), accepting \(fitting). Raise `ulimit -n` to allow more."
        )
        return (served, fitting)
    }
}
