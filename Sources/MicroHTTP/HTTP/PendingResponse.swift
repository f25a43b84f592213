internal import CMicroHTTPD
import ConcurrencyKit

/// A response that is not ready when the responder returns: the responder answers
/// `Response(pending:)` at once and calls ``complete(_:)`` later, from any thread (e.g. once an
/// action is durable). Meanwhile the connection waits suspended and holds no worker thread, so a
/// few workers can keep thousands of such requests waiting at once.
///
/// Only the first ``complete(_:)`` counts. A pending response must be completed: the request
/// stays open until it is, and a server that stops completes what is left with `503`.
public final class PendingResponse: Sendable {
    private struct State: @unchecked Sendable {
        // @unchecked: `connection` is a libmicrohttpd handle, only passed to its resume call
        // (thread-safe with MHD_ALLOW_SUSPEND_RESUME) while the connection is suspended.
        var response: Response?
        var connection: OpaquePointer?
        var server: ServerCore?
        var observers: [@Sendable (Response) -> Void] = []
    }

    private let state = Lock(State())

    /// A response to complete later.
    public init() {}

    /// Calls `observer` with the response once the request is completed (at once if it is); for
    /// measurements such as metrics, which must not change the response.
    public func whenCompleted(_ observer: @escaping @Sendable (Response) -> Void) {
        let completed = state.withLock { state -> Response? in
            if let response = state.response { return response }
            state.observers.append(observer)
            return nil
        }
        if let completed { observer(completed) }
    }

    /// Completes the request with `response`; later calls do nothing.
    public func complete(_ response: Response) {
        let (resumed, observers) = state.withLock { state -> ((OpaquePointer, ServerCore)?, [@Sendable (Response) -> Void]) in
            guard state.response == nil else { return (nil, []) }
            state.response = response
            let observers = state.observers
            state.observers = []
            guard let connection = state.connection, let server = state.server else { return (nil, observers) }
            state.connection = nil
            state.server = nil
            return ((connection, server), observers)
        }
        for observer in observers {
            observer(response)
        }
        if let (connection, server) = resumed {
            server.pendingResponses.remove(self)
            MHD_resume_connection(connection)
        }
    }

    /// Whether ``complete(_:)`` was called.
    public var isComplete: Bool {
        state.withLock { $0.response != nil }
    }

    /// In the access handler: the response if it is complete already; otherwise suspends the
    /// connection until ``complete(_:)`` and returns nil.
    func responseOrSuspend(_ connection: OpaquePointer, server: ServerCore) -> Response? {
        state.withLock { state -> Response? in
            if let response = state.response { return response }
            // Once the shutdown has answered every waiting response, no connection may suspend:
            // libmicrohttpd 0.9.75 stops with a panic (SIGABRT) on a suspended connection.
            if let final = server.pendingResponses.insert(self) { return final }
            state.connection = connection
            state.server = server
            // Under the lock, so that a concurrent `complete` resumes only after this.
            MHD_suspend_connection(connection)
            return nil
        }
    }

    /// In the access handler, after the resume: the completed response.
    var completedResponse: Response? {
        state.withLock { $0.response }
    }
}

/// The pending responses of suspended connections, for shutdown.
final class PendingResponseRegistry: Sendable {
    private struct State {
        var waiting: [ObjectIdentifier: PendingResponse] = [:]
        /// The shutdown's answer, once ``completeAll(with:)`` ran: what a response that would
        /// wait from then on gets at once.
        var final: Response?
    }

    private let state = Lock(State())

    /// Registers `response` as waiting, or returns the shutdown's answer for it to be sent now
    /// (``completeAll(with:)`` ran: its connection must not be suspended).
    func insert(_ response: PendingResponse) -> Response? {
        state.withLock { state in
            if let final = state.final { return final }
            state.waiting[ObjectIdentifier(response)] = response
            return nil
        }
    }

    func remove(_ response: PendingResponse) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(response)) }
    }

    /// Completes every pending response with `response` (shutdown after its grace period); one
    /// made afterwards gets `response` at once, without waiting.
    func completeAll(with response: Response) {
        let all = state.withLock { state in
            defer { state.waiting = [:] }
            state.final = response
            return Array(state.waiting.values)
        }
        for pendingResponse in all {
            pendingResponse.complete(response)
        }
    }
}

extension Response {
    /// A response whose status, headers and body come later, through `pending`. Headers set on
    /// this response are added to the completed one where it has none of that name.
    public init(pending: PendingResponse) {
        self.init(status: 200, body: .pending(pending))
    }
}
