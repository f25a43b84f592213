/// One server-sent-events (or any endless chunked) response body. Created by a responder, returned in Response.body, fed from any thread.
import ConcurrencyKit
///
/// Threading contract:
/// - ``send(_:)``, ``close()``, ``isClosed`` and ``pendingBytes`` may be called from any thread,
///   at any time, also before the server has attached the stream to its connection (bytes
///   queue until then) and after it ended (they are ignored).
/// - Bytes are written in the order they were sent. While the connection waits for data, a send
///   is written to the socket at once, on the calling thread, by one non-blocking system call;
///   sends that queue while the client is behind leave together, in as few writes as fit (see
///   `docs/event-delivery.md`).
/// - The backlog is bounded: a send that would make ``pendingBytes`` exceed
///   `maxPendingBytes` ends the stream with ``Termination/overflow``, drops the backlog and
///   cuts the connection off. The bound is on how far a client lags, not on the size of one
///   send: while nothing is pending, any send is accepted (so one event larger than the bound
///   still reaches a client that keeps up, instead of cutting it off every time it connects).
/// - Each ``onTermination(_:)`` handler runs exactly once, synchronously on the thread that
///   ends the stream — which may be inside your own `send` or `close` call. So do not call
///   `send`/`close` while holding a lock that a termination handler takes.
/// - A stream returned in more than one response is served by the first; the others get 500.
public final class EventStream: Sendable {
    /// Why a stream ended.
    public enum Termination: Sendable, Equatable {
        /// The client disconnected (noticed at once while the stream waits for data, otherwise at
        /// the next write), the connection timed out while the client did not read, or the
        /// request was `HEAD`.
        case clientGone
        /// A send found bytes pending and would have taken the backlog past `maxPendingBytes`:
        /// the backlog is dropped and the connection cut off at once (reset, no chunked
        /// terminator), freeing the kernel's send queue too.
        case overflow
        /// Bytes were pending for a whole heartbeat interval and the socket took none of them
        /// (the client stopped reading, or reads too slowly for its socket to take more): the
        /// backlog is dropped and the connection cut off, as for ``overflow``. Catches stalled
        /// clients whose backlog stays under `maxPendingBytes`.
        case stalled
        /// ``EventStream/close()`` was called; what was queued is still delivered.
        case closed
        /// The server is shutting down; what was queued is still delivered.
        case serverShutdown
    }

    /// The largest backlog of unsent bytes before the stream ends with ``Termination/overflow``.
    public let maxPendingBytes: Int

    let state: Lock<StreamState>

    /// Creates an open stream whose backlog may hold up to `maxPendingBytes` unsent bytes.
    public init(maxPendingBytes: Int) {
        self.maxPendingBytes = max(0, maxPendingBytes)
        state = Lock(StreamState())
    }

    /// Queues bytes for the client; returns false if the stream is already closed, or if bytes are
    /// already pending and the backlog would exceed `maxPendingBytes` — in that case the stream
    /// closes itself (reason ``Termination/overflow``): a stalled client can never grow memory
    /// without limit.
    ///
    /// The array is kept, not copied: sending one array to many streams stores it once. Never
    /// blocks: a send to a waiting connection costs one non-blocking write on the calling thread.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        enqueue(CollectionOfOne(bytes), onlyIfIdle: false)
    }

    /// Queues several arrays as one send: the backlog rule applies to them together (so a prefix
    /// such as a `retry:` field never makes a large event that follows it count as lag), and
    /// nothing sent from another thread can come between them. The arrays are kept, not copied.
    @discardableResult
    public func send(_ parts: [UInt8]...) -> Bool {
        enqueue(parts, onlyIfIdle: false)
    }

    /// Queues the arrays of `parts` as one send, like the variadic `send(_:)` with a list built
    /// at run time (events gathered for this stream). The arrays are kept, not copied.
    @discardableResult
    public func send(contentsOf parts: [[UInt8]]) -> Bool {
        enqueue(parts, onlyIfIdle: false)
    }

    /// Flushes what is queued, then ends the response cleanly (chunked terminator).
    ///
    /// Termination handlers run before this returns, with ``Termination/closed``; calling it
    /// on an ended stream does nothing.
    public func close() {
        end(.closed, discardingBacklog: false)
    }

    /// Whether the stream has ended (queued bytes may still be on their way after ``close()``).
    public var isClosed: Bool {
        state.withLock { $0.termination != nil }
    }

    /// Bytes accepted and not yet handed to the connection's socket.
    public var pendingBytes: Int {
        state.withLock { $0.pendingByteCount }
    }

    /// Calls `handler` once, as soon as at most `threshold` bytes are pending or the stream has
    /// ended: at once, on the calling thread, if that holds already; otherwise on the thread that
    /// takes bytes from the backlog (the connection's, or the socket watcher's) or ends the stream.
    ///
    /// For a producer with more to send than the backlog holds (a replay of many versions): it
    /// sends while ``pendingBytes`` leaves room and waits for this otherwise, so the backlog rule
    /// never cuts off a client that keeps reading. The handler must be cheap (hand the work to
    /// another thread) and must not call back into this stream. One waiter at a time: a new one
    /// replaces the previous, which is dropped without being called.
    public func whenPending(atMost threshold: Int, _ handler: @escaping @Sendable () -> Void) {
        let ready = state.withLock { state -> (@Sendable () -> Void)? in
            state.roomWaiter = RoomWaiter(threshold: threshold, handler: handler)
            return state.takeRoomWaiter()
        }
        ready?()
    }

    /// Called exactly once when the stream ends, with why (a ``Termination``). Set it before
    /// returning the Response. Called on whatever thread ends the stream; must be cheap.
    ///
    /// Several handlers may be registered; they run in order. A handler registered after the
    /// stream ended runs immediately, on the calling thread.
    public func onTermination(_ handler: @escaping @Sendable (EventStream.Termination) -> Void) {
        let ended: Termination? = state.withLock { state in
            if let termination = state.termination {
                return termination
            }
            state.terminationHandlers.append(handler)
            return nil
        }
        if let ended {
            handler(ended)
        }
    }

    /// Queues `parts` (or, for heartbeats, only if nothing is queued); the `send` logic.
    func enqueue(_ parts: some Collection<[UInt8]>, onlyIfIdle: Bool) -> Bool {
        let maxPendingBytes = maxPendingBytes
        let outcome: EnqueueOutcome = state.withLock { state in
            guard state.termination == nil else { return .refused }
            let pending = state.pendingByteCount
            if onlyIfIdle, pending > 0 {
                return .queued
            }
            let count = parts.reduce(0) { $0 + $1.count }
            guard pending == 0 || count <= maxPendingBytes - pending else {
                return .overflowed(state.end(.overflow, discardingBacklog: true))
            }
            for bytes in parts where !bytes.isEmpty {
                if state.canWriteDirectly {
                    state.writeDirectly(bytes, owner: self)
                } else {
                    state.backlog.append(bytes)
                    state.resumeIfSuspended()
                }
            }
            return .queued
        }
        switch outcome {
        case .queued:
            return true
        case .refused:
            return false
        case .overflowed(let handlers):
            handlers.forEach { $0(.overflow) }
            return false
        }
    }

    /// Ends the stream for `reason` unless it already ended, then runs the handlers (unlocked).
    func end(_ reason: Termination, discardingBacklog: Bool) {
        let handlers = state.withLock { $0.end(reason, discardingBacklog: discardingBacklog) }
        handlers.forEach { $0(reason) }
    }

    private enum EnqueueOutcome {
        case queued
        case refused
        case overflowed([@Sendable (Termination) -> Void])
    }
}
