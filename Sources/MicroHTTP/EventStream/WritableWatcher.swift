internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thread per server that waits until the sockets of streams with an unfinished direct
/// write can take more bytes, and then lets those streams go on (``EventStream/socketWritable()``).
///
/// A direct write leaves a remainder only when the client's socket buffer is full, so this
/// thread is idle for streams whose clients keep up. Registrations are one-shot and keyed by a
/// token that is never reused, so an event that arrives after a stream was unwatched finds
/// nothing instead of a freed stream.
final class WritableWatcher: Sendable {
    private struct Registry: Sendable {
        var streams: [UInt64: EventStream] = [:]
        var nextToken: UInt64 = 1
    }

    /// The epoll set and the eventfd that wakes the thread to stop; -1 until started.
    private let descriptors = Atomic<Int64>(-1)
    private let registry = Lock(Registry())
    private let stopRequested = Atomic<Bool>(false)
    private let thread = Lock<pthread_t?>(nil)

    /// Token 0 marks the stop eventfd in the epoll set.
    private static let wakeToken: UInt64 = 0

    /// Creates the epoll set and starts the thread; `false` if the system refused either.
    func start() -> Bool {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return false }
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wake >= 0 else {
            close(epoll)
            return false
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: Self.wakeToken))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else {
            close(wake)
            close(epoll)
            return false
        }
        descriptors.store(Int64(epoll) << 32 | Int64(wake), ordering: .releasing)
        let context = Unmanaged.passRetained(self)
        var handle = pthread_t()
        guard pthread_create(&handle, nil, writableWatcherThreadMain, context.toOpaque()) == 0 else {
            context.release()
            closeDescriptors()
            return false
        }
        thread.withLock { $0 = handle }
        return true
    }

    /// Stops the thread, waits for it and closes the epoll set. Call after every stream that
    /// was watched has been released.
    func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        if let (_, wake) = currentDescriptors {
            var one: UInt64 = 1
            _ = write(wake, &one, MemoryLayout<UInt64>.size)
        }
        if let handle = thread.withLock({ thread in defer { thread = nil }; return thread }) {
            pthread_join(handle, nil)
        }
        closeDescriptors()
        registry.withLock { $0.streams.removeAll() }
    }

    /// Calls `stream.socketWritable()` once `socket` can take more bytes; returns the token
    /// to re-arm or end the watch with, or nil if the socket could not be watched.
    func watch(_ stream: EventStream, socket: Int32) -> UInt64? {
        guard let (epoll, _) = currentDescriptors else { return nil }
        let token = registry.withLock { registry in
            defer { registry.nextToken += 1 }
            registry.streams[registry.nextToken] = stream
            return registry.nextToken
        }
        var event = epoll_event(events: Self.writableOnce, data: epoll_data_t(u64: token))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else {
            _ = registry.withLock { $0.streams.removeValue(forKey: token) }
            return nil
        }
        return token
    }

    /// Watches a socket again after it took some but not all of the bytes; `false` on failure.
    func rearm(_ token: UInt64, socket: Int32) -> Bool {
        guard let (epoll, _) = currentDescriptors else { return false }
        var event = epoll_event(events: Self.writableOnce, data: epoll_data_t(u64: token))
        return epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0
    }

    /// Ends a watch; the socket must still be open.
    func unwatch(_ token: UInt64, socket: Int32) {
        if let (epoll, _) = currentDescriptors {
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil)
        }
        _ = registry.withLock { $0.streams.removeValue(forKey: token) }
    }

    /// Level-triggered, one-shot: one wake-up per arming, also for errors and hang-ups.
    private static let writableOnce = EPOLLOUT.rawValue | EPOLLONESHOT.rawValue

    private var currentDescriptors: (epoll: Int32, wake: Int32)? {
        let packed = descriptors.load(ordering: .acquiring)
        guard packed >= 0 else { return nil }
        return (Int32(truncatingIfNeeded: packed >> 32), Int32(truncatingIfNeeded: packed))
    }

    private func closeDescriptors() {
        let packed = descriptors.exchange(-1, ordering: .acquiringAndReleasing)
        guard packed >= 0 else { return }
        close(Int32(truncatingIfNeeded: packed >> 32))
        close(Int32(truncatingIfNeeded: packed))
    }

    fileprivate func run() {
        guard let (epoll, _) = currentDescriptors else { return }
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !stopRequested.load(ordering: .sequentiallyConsistent) {
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), -1)
            }
            for index in 0..<max(0, Int(count)) {
                let token = events[index].data.u64
                guard token != Self.wakeToken else { continue }
                let stream = registry.withLock { $0.streams[token] }
                stream?.socketWritable()
            }
        }
    }
}

/// The watcher thread's entry point; `context` is the retained ``WritableWatcher``.
private func writableWatcherThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let watcher = Unmanaged<WritableWatcher>.fromOpaque(context)
    watcher.takeUnretainedValue().run()
    watcher.release()
    return nil
}
