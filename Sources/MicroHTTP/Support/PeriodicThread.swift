import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own that runs a task at a fixed interval until stopped (the heartbeat, the
/// request-head deadlines). A plain pthread: the tasks make system calls on sockets and must not
/// tie up Swift's cooperative thread pool.
final class PeriodicThread: Sendable {
    private let interval: Duration
    private let task: @Sendable () -> Void
    private let stopRequested = Atomic<Bool>(false)
    private let wakeUp = WaitCondition()
    private let thread = Lock<pthread_t?>(nil)

    /// A thread that will run `task` every `interval` once started.
    init(interval: Duration, task: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.task = task
    }

    /// Starts the thread; returns `false` if the system refused to create it.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self)
        var handle = pthread_t()
        guard pthread_create(&handle, nil, periodicThreadMain, context.toOpaque()) == 0 else {
            context.release()
            return false
        }
        thread.withLock { $0 = handle }
        return true
    }

    /// Stops the thread and waits for it to exit (unless called from it, e.g. by the task).
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
        while !wakeUp.wait(timeout: interval, until: { stopRequested.load(ordering: .sequentiallyConsistent) }) {
            task()
        }
    }
}

/// The thread's entry point; `context` is the retained ``PeriodicThread``.
private func periodicThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let periodic = Unmanaged<PeriodicThread>.fromOpaque(context)
    periodic.takeUnretainedValue().run()
    periodic.release()
    return nil
}
