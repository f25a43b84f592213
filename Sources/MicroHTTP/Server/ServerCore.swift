import ConcurrencyKit
import Logging
import Synchronization

/// What libmicrohttpd's callbacks need: the responder, limits, open streams and the count of
/// requests in flight. Passed to every callback as `cls` (retained while the daemon runs).
final class ServerCore: Sendable {
    let responder: any Responder
    let logger: Logger
    /// libmicrohttpd's messages, one line per kind and then a count (``daemonLog``).
    let daemonLogRepeats = RateLimitedLog()
    let maxBodyBytes: Int
    /// Whether requests carry their connection's memo (the responder's ``Responder/usesConnectionMemos``).
    let usesConnectionMemos: Bool
    /// The header fields a request may carry once (the responder's ``Responder/singleFieldNames``).
    let singleFields: SingleFields
    /// The largest query a request may carry (`414` past it).
    let queryLimit: QueryLimit
    /// What event-stream sockets' kernel send buffers are capped at; 0 leaves the kernel's default.
    let streamSendBufferBytes: Int
    /// Whether sends may be written straight to a waiting stream's socket: configured, and
    /// verified for the libmicrohttpd version loaded.
    let allowsDirectStreamWrites: Bool
    /// The libmicrohttpd version loaded, when it has not been verified for direct writes that
    /// the configuration asked for (logged at start).
    let unverifiedLibraryVersion: String?
    /// Told about every connection opened or closed and every stream attached or removed.
    let occupancyChanges = ChangeSignal()
    let streams: StreamRegistry
    /// Open connections and their request-head deadlines.
    let connections: ConnectionTracker
    /// Past this many open connections, requests are answered 503 (set at start, from the
    /// configuration and the open-file limit).
    let connectionLimit = Atomic<Int>(Int.max)
    /// Past this many, new connections are closed at once without an answer.
    let connectionHardLimit = Atomic<Int>(Int.max)
    /// Watches suspended streams' sockets: for clients hanging up, and for room to finish a
    /// direct write.
    let socketWatcher = SocketWatcher()
    let writeCounters = StreamWriteCounters()
    /// Responses that suspended connections wait for.
    let pendingResponses = PendingResponseRegistry()

    /// Requests that reached the access handler and have not completed.
    private let inFlight = Atomic<Int>(0)
    /// Requests inside the responder right now.
    private let responding = Atomic<Int>(0)
    /// Set once the server stops taking requests: new connections are refused and requests
    /// that reach the responder from then on are answered 503.
    private let refusing = Atomic<Bool>(false)
    /// Waited on until `responding` is 0 (the count is an atomic: it is on every request's path).
    private let respondersDone = Lock(())
    /// Set once shutdown starts: responses close their connection, idle waits get signalled.
    private let draining = Atomic<Bool>(false)
    /// Waited on until `inFlight` is 0.
    private let idle = Lock(())

    init(responder: any Responder, logger: Logger, configuration: HTTPServerConfiguration, libraryVersion: String) {
        self.responder = responder
        self.logger = logger
        maxBodyBytes = max(0, configuration.maxBodyBytes)
        singleFields = SingleFields(responder.singleFieldNames)
        usesConnectionMemos = responder.usesConnectionMemos
        queryLimit = QueryLimit(connectionMemoryLimit: configuration.connectionMemoryLimit)
        streamSendBufferBytes = max(0, configuration.streamSendBufferBytes)
        let verified = LibmicrohttpdVersion.allowsDirectWrites(libraryVersion)
        allowsDirectStreamWrites = configuration.directStreamWrites && verified
        unverifiedLibraryVersion = configuration.directStreamWrites && !verified ? libraryVersion : nil
        connections = ConnectionTracker(headTimeout: configuration.requestHeadTimeout, bodyTimeout: configuration.requestBodyTimeout, changes: occupancyChanges)
        streams = StreamRegistry(changes: occupancyChanges)
    }

    /// Whether a request on a connection opened now would be over the connection limit.
    var isOverConnectionLimit: Bool {
        connections.count > connectionLimit.load(ordering: .relaxed)
    }

    /// Whether new connections and requests are refused (shutting down).
    var isRefusingRequests: Bool {
        refusing.load(ordering: .relaxed)
    }

    /// Admits a request to the responder; false once the server stops taking requests (answer it
    /// 503 then). Every admission must be balanced by ``leaveResponder()``.
    func enterResponder() -> Bool {
        responding.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if refusing.load(ordering: .sequentiallyConsistent) {
            leaveResponder()
            return false
        }
        return true
    }

    func leaveResponder() {
        let remaining = responding.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
        if remaining == 0, refusing.load(ordering: .sequentiallyConsistent) {
            respondersDone.notifyAll()
        }
    }

    /// Stops admitting requests and waits until none is inside the responder; returns whether
    /// that happened within `timeout`. A request admitted before this call is answered normally;
    /// every later one is refused (the two checks are sequentially consistent, so no request
    /// slips between them).
    func stopTakingRequests(timeout: Duration) -> Bool {
        refusing.store(true, ordering: .sequentiallyConsistent)
        return respondersDone.wait(timeout: timeout) { _ in responding.load(ordering: .sequentiallyConsistent) == 0 }
    }

    var requestsInFlight: Int {
        inFlight.load(ordering: .sequentiallyConsistent)
    }

    func requestStarted() {
        inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    func requestCompleted() {
        let remaining = inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
        if remaining == 0, draining.load(ordering: .sequentiallyConsistent) {
            idle.notifyAll()
        }
    }

    /// Starts draining and returns the streams that were open (later ones end at attach).
    func beginDraining() -> [EventStream] {
        draining.store(true, ordering: .sequentiallyConsistent)
        return streams.close()
    }

    /// Waits until no request is in flight; returns whether that happened within `timeout`.
    func waitUntilIdle(timeout: Duration) -> Bool {
        idle.wait(timeout: timeout) { _ in requestsInFlight == 0 }
    }
}
