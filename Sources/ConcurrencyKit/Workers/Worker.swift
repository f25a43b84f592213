// Linux only, like `startThread` (Threads.swift).
#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A long-lived thread of its own with a name, started once, asked to stop, and waited for with a
/// deadline: the one way this package's users run a thread (the stream watcher, the heartbeat, the
/// checkpointer, the threads of a ``WorkerPool``).
///
/// The body gets the worker and loops until ``isStopRequested``; ``pause(for:)`` is its sleep that
/// a stop cuts short. A body that blocks elsewhere (in `epoll_wait`) is woken by `onStopRequest`
/// (ring a ``Doorbell`` there). ``stop(timeout:)`` returns once the body has returned, or throws
/// ``WorkerError/Code/stopTimedOut`` when it has not in time: the caller learns of a hung worker
/// instead of hanging with it.
///
/// ```swift
/// let worker = Worker(named: "wal-checkpoint")
/// try worker.start { worker in
///     while !worker.pause(for: .seconds(1)) { checkpoint() }
/// }
/// try worker.stop(timeout: .seconds(5))
/// ```
///
/// The thread is detached: waiting means waiting for the body to return (a flag under a lock),
/// which is what makes a timeout possible (`pthread_join` has none).
package final class Worker: Sendable {
    /// How long ``stop(timeout:)`` waits unless told otherwise.
    package static let defaultStopTimeout: Duration = .seconds(30)

    private enum Phase {
        case idle, running, finished
    }

    private struct Control {
        var phase = Phase.idle
        var stopRequested = false
        var thread: pthread_t?
    }

    /// What `top -H`, `perf` and debuggers show (15 bytes are kept).
    package let name: String
    private let control = Lock(Control())
    private let onStopRequest: @Sendable () -> Void

    /// A worker named `name`, not started; `onStopRequest` runs (on the stopping thread) each time
    /// a stop is requested, to wake a body blocked somewhere ``pause(for:)`` does not see.
    package init(named name: String, onStopRequest: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.onStopRequest = onStopRequest
    }

    /// Starts the thread running `body`; does nothing when started (or stopped) before. Throws
    /// ``WorkerError/Code/threadRefused`` when the system refuses a thread.
    package func start(_ body: @escaping @Sendable (Worker) -> Void) throws(WorkerError) {
        let claimed = control.withLock { control -> Bool in
            guard control.phase == .idle, !control.stopRequested else { return false }
            control.phase = .running
            return true
        }
        guard claimed else { return }
        let handle = startThread(named: name) { [self] in
            control.withLock { $0.thread = pthread_self() }
            body(self)
            control.withLock { $0.phase = .finished }
            control.notifyAll()
        }
        guard let handle else {
            control.withLock { $0.phase = .finished }
            control.notifyAll()
            throw WorkerError(.threadRefused, name: name)
        }
        pthread_detach(handle)
    }

    /// Whether a stop was requested: the body's loop condition.
    package var isStopRequested: Bool {
        control.withLock { $0.stopRequested }
    }

    /// Whether the body is running now (started, not returned).
    package var isRunning: Bool {
        control.withLock { $0.phase == .running }
    }

    /// The body's sleep: returns after `interval`, or at once when a stop is requested. True when
    /// a stop was requested (the body should return).
    package func pause(for interval: Duration) -> Bool {
        control.wait(timeout: interval, until: \.stopRequested)
    }

    /// Asks the body to return (``isStopRequested``, ``pause(for:)`` and `onStopRequest`) without
    /// waiting for it.
    package func requestStop() {
        control.withLock { $0.stopRequested = true }
        control.notifyAll()
        onStopRequest()
    }

    /// Waits until the body has returned (at once when it never started). Throws
    /// ``WorkerError/Code/stopTimedOut`` after `timeout`. Called from the worker's own thread
    /// (by its body) it does not wait: that would never end.
    package func join(timeout: Duration = Worker.defaultStopTimeout) throws(WorkerError) {
        let ownThread = control.withLock { control in
            control.phase == .running && control.thread.map { pthread_equal($0, pthread_self()) != 0 } == true
        }
        guard !ownThread else { return }
        guard control.wait(timeout: timeout, until: { $0.phase != .running }) else {
            throw WorkerError(.stopTimedOut, name: name, timeout: timeout)
        }
    }

    /// Requests a stop and waits for the body to return (see ``join(timeout:)``); a worker never
    /// started will not start afterwards.
    package func stop(timeout: Duration = Worker.defaultStopTimeout) throws(WorkerError) {
        requestStop()
        try join(timeout: timeout)
    }

    /// Starts the thread running `task` every `interval` (the first time one interval after the
    /// start) until stopped: the heartbeat, deadline checks, renewals.
    package func startRepeating(every interval: Duration, _ task: @escaping @Sendable () -> Void) throws(WorkerError) {
        try start { worker in
            while !worker.pause(for: interval) {
                task()
            }
        }
    }
}
#endif
