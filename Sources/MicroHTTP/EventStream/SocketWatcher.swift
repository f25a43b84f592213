internal import CMicroHTTPD
import ConcurrencyKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a ``SocketWatcher`` waits for on a socket.
struct SocketInterest: OptionSet, Sendable {
    let rawValue: UInt32

    /// The socket can take more bytes (for the rest of an unfinished direct write).
    static let writable = SocketInterest(rawValue: EPOLLOUT.rawValue)
    /// The peer closed the connection (or it failed): a client that left its event stream.
    static let hangUp = SocketInterest(rawValue: EPOLLRDHUP.rawValue)
}

/// What a ``SocketWatcher`` calls when a watched socket is ready: an ``EventStream`` in the
/// server, anything in unit tests.
protocol SocketReadinessHandler: AnyObject, Sendable {
    /// Called on the watcher thread, once per arming, with what the socket is ready for.
    func socketReady(_ readiness: SocketInterest)
}

/// One thread per server that watches the sockets of suspended event streams: for a client
/// that closes its end (so its connection slot is freed at once, not at the next heartbeat) and,
/// for streams with an unfinished direct write, for room in the socket's send buffer. It then
/// calls ``SocketReadinessHandler/socketReady(_:)``.
///
/// A stream is watched only while libmicrohttpd has its connection suspended (it does not watch
/// the socket then), and a direct write leaves a remainder only when the client's socket buffer
/// is full, so this thread is idle while clients keep up. Registrations are one-shot and keyed
/// by a token that is never reused, so an event that arrives after a stream was unwatched finds
/// nothing instead of a freed stream.
final class SocketWatcher: Sendable {
    private struct Registry: Sendable {
        var handlers: [UInt64: any SocketReadinessHandler] = [:]
        var nextToken: UInt64 = 1
    }

    /// The epoll set; -1 until started and after stopped.
    private let epollDescriptor = Atomic<Int32>(-1)
    /// What wakes the thread to stop (in the epoll set as ``wakeToken``); nil until started.
    private let stopBell = Lock<Doorbell?>(nil)
    private let registry = Lock(Registry())
    private let worker = Worker(named: "stream-watcher")

    /// Token 0 marks the stop doorbell in the epoll set.
    private static let wakeToken: UInt64 = 0

    /// Creates the epoll set and starts the thread; `false` if the system refused either (a
    /// refused thread is logged by the caller as such).
    func start() -> Bool {
        let epoll: Int32
        let bell: Doorbell
        do {
            epoll = try Posix.epollCreate()
        } catch {
            return false
        }
        do {
            bell = try Doorbell()
            try Posix.epollAdd(epoll, bell.descriptor, events: EPOLLIN.rawValue, token: Self.wakeToken)
        } catch {
            Self.close(epoll)
            return false
        }
        stopBell.withLock { $0 = bell }
        epollDescriptor.store(epoll, ordering: .releasing)
        do {
            try worker.start { [self] worker in run(worker) }
        } catch {
            closeDescriptors()
            return false
        }
        return true
    }

    /// Stops the thread, waits for it and closes the epoll set. Call after every stream that
    /// was watched has been released. Throws when the thread has not stopped within `timeout`
    /// (the epoll set is then left open: the thread may still wait on it).
    func stop(timeout: Duration = .seconds(10)) throws(WorkerError) {
        worker.requestStop()
        stopBell.withLock { $0 }?.ring()
        try worker.join(timeout: timeout)
        closeDescriptors()
        registry.withLock { $0.handlers.removeAll() }
    }

    /// Calls `handler.socketReady(_:)` once `socket` is ready for `interest` (a hang-up or an
    /// error is always reported); returns the token to re-arm or end the watch with, or nil if the
    /// socket could not be watched. The handler is kept until ``unwatch(_:socket:)`` or ``stop()``.
    func watch(_ handler: any SocketReadinessHandler, socket: Int32, for interest: SocketInterest) -> UInt64? {
        guard let epoll = currentEpoll else { return nil }
        let token = registry.withLock { registry in
            defer { registry.nextToken += 1 }
            registry.handlers[registry.nextToken] = handler
            return registry.nextToken
        }
        do {
            try Posix.epollAdd(epoll, socket, events: Self.once(interest), token: token)
        } catch {
            _ = registry.withLock { $0.handlers.removeValue(forKey: token) }
            return nil
        }
        return token
    }

    /// Watches a socket again (after an event, or for another interest); `false` on failure.
    func rearm(_ token: UInt64, socket: Int32, for interest: SocketInterest) -> Bool {
        guard let epoll = currentEpoll else { return false }
        do {
            try Posix.epollModify(epoll, socket, events: Self.once(interest), token: token)
            return true
        } catch {
            return false
        }
    }

    /// Ends a watch; the socket must still be open.
    func unwatch(_ token: UInt64, socket: Int32) {
        if let epoll = currentEpoll {
            do {
                try Posix.epollRemove(epoll, socket)
            } catch {
                // ENOENT: never armed or already gone; the token below is what matters.
            }
        }
        _ = registry.withLock { $0.handlers.removeValue(forKey: token) }
    }

    /// Level-triggered, one-shot: one wake-up per arming, also for errors and hang-ups.
    private static func once(_ interest: SocketInterest) -> UInt32 {
        interest.rawValue | EPOLLONESHOT.rawValue
    }

    /// What an epoll event reports, with errors and full hang-ups counted as the peer leaving.
    private static func readiness(_ events: UInt32) -> SocketInterest {
        var ready = SocketInterest(rawValue: events & (EPOLLOUT.rawValue | EPOLLRDHUP.rawValue))
        if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            ready.insert(.hangUp)
        }
        return ready
    }

    private var currentEpoll: Int32? {
        let epoll = epollDescriptor.load(ordering: .acquiring)
        return epoll >= 0 ? epoll : nil
    }

    private func closeDescriptors() {
        let epoll = epollDescriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if epoll >= 0 {
            Self.close(epoll)
        }
        stopBell.withLock { $0 = nil }  // closes its eventfd
    }

    private static func close(_ epoll: Int32) {
        do {
            try Posix.closeDescriptor(epoll)
        } catch {
            assertionFailure("closing the watcher's epoll set: \(error)")  // EBADF would be a bug
        }
    }

    private func run(_ worker: Worker) {
        guard let epoll = currentEpoll else { return }
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !worker.isStopRequested {
            let count: Int
            do {
                count = try events.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) in
                    try Posix.epollWait(epoll, into: buffer)
                }
            } catch {
                // Only a bad epoll descriptor (EBADF, EINVAL) makes epoll_wait fail: not one of ours.
                preconditionFailure("\(error)")
            }
            for index in 0..<count {
                let token = events[index].data.u64
                guard token != Self.wakeToken else { continue }
                let handler = registry.withLock { $0.handlers[token] }
                handler?.socketReady(Self.readiness(events[index].events))
            }
        }
    }
}
