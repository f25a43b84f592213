import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thread per server that sends a comment line to every open stream at a fixed interval,
/// so proxies keep the streams open and clients that left are noticed at the next write, and
/// cuts off streams whose client read nothing during a whole interval while bytes waited.
final class Heartbeat: Sendable {
    /// An SSE comment line: ignored by clients, but it makes the connection write. One line,
    /// with no blank line after it: some clients (httpx-sse) turn a blank line after a comment
    /// into an empty event.
    static let comment: [UInt8] = Array(": ping\n".utf8)

    private let interval: Duration
    private let streams: StreamRegistry
    private let stopRequested = Atomic<Bool>(false)
    private let wakeUp = WaitCondition()
    private let thread = Lock<pthread_t?>(nil)

    init(interval: Duration, streams: StreamRegistry) {
        self.interval = interval
        self.streams = streams
    }

    /// Starts the thread; returns `false` if the system refused to create it.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self)
        var handle = pthread_t()
        guard pthread_create(&handle, nil, heartbeatThreadMain, context.toOpaque()) == 0 else {
            context.release()
            return false
        }
        thread.withLock { $0 = handle }
        return true
    }

    /// Stops the thread and waits for it to exit (unless called from it).
    func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wakeUp.notifyAll()
        guard let handle = thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    fileprivate func run() {
        while true {
            let stopping = wakeUp.wait(timeout: interval) { stopRequested.load(ordering: .sequentiallyConsistent) }
            if stopping {
                return
            }
            for stream in streams.snapshot() {
                stream.cutOffIfStalled()
                _ = stream.enqueue(CollectionOfOne(Self.comment), onlyIfIdle: true)
            }
        }
    }
}

/// The heartbeat thread's entry point; `context` is the retained ``Heartbeat``.
private func heartbeatThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let heartbeat = Unmanaged<Heartbeat>.fromOpaque(context)
    heartbeat.takeUnretainedValue().run()
    heartbeat.release()
    return nil
}
