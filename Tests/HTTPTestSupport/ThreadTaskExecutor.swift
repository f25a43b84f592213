import ConcurrencyKit
import DequeModule
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A task executor with a thread of its own, for tests that run async code (a `ServiceGroup`)
/// while other tests block the threads of Swift's cooperative pool: on a 2-core machine the pool
/// has two, and a synchronous test waiting for async work on it can wait for ever.
///
/// Child tasks (`async let`, task groups) inherit the preference; unstructured tasks do not.
public final class ThreadTaskExecutor: TaskExecutor {
    private struct Queue {
        var jobs: Deque<UnownedJob> = []
        var stopped = false
    }

    private let queue = Lock(Queue())
    private let worker = Worker(named: "test-executor")

    /// Starts the thread.
    public init() {
        do {
            try worker.start { [self] _ in run() }
        } catch {
            preconditionFailure("\(error)")
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        queue.notifyAll()
    }

    /// Lets the thread exit once every job enqueued so far has run.
    public func stop() {
        queue.withLock { $0.stopped = true }
        queue.notifyAll()
    }

    private func run() {
        while let job = queue.withLock(waitingUntil: { !$0.jobs.isEmpty || $0.stopped }, { $0.jobs.popFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs `body`, and the child tasks it starts, on a thread of its own (see ``ThreadTaskExecutor``).
public func onOwnThread<Result: Sendable>(
    _ body: @Sendable () async throws -> Result
) async rethrows -> Result {
    let executor = ThreadTaskExecutor()
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor, operation: body)
}
