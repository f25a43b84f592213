import ConcurrencyKit
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
    private struct Control {
        var thread: pthread_t?
        var stopRequested = false
    }

    private let control = Lock(Control())
    private let name: String

    /// A thread named `name` that will run `task` every `interval` once started.
    init(named name: String, interval: Duration, task: @escaping @Sendable () -> Void) {
        self.name = name
        self.interval = interval
        self.task = task
    }

    /// Starts the thread; returns `false` if the system refused to create it.
    func start() -> Bool {
        guard let handle = startThread(named: name, { [self] in run() }) else { return false }
        control.withLock { $0.thread = handle }
        return true
    }

    /// Stops the thread and waits for it to exit (unless called from it, e.g. by the task).
    func stop() {
        let handle = control.withLock { control in
            control.stopRequested = true
            defer { control.thread = nil }
            return control.thread
        }
        control.notifyAll()
        guard let handle else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    private func run() {
        while !control.wait(timeout: interval, until: \.stopRequested) {
            task()
        }
    }
}
