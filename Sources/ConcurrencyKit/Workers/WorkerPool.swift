// Linux only, like ``Worker``.
#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A lane's turn on a pool thread (``SerialLane``): runs some of its jobs and says whether it has
/// more, in which case the pool queues it again behind the work that arrived meanwhile.
protocol PoolLane: AnyObject, Sendable {
    /// Runs up to a turn's worth of jobs; true when jobs are left.
    func runTurn() -> Bool
}

/// A few named threads (``Worker``s, one per core by default) shared by many ``SerialLane``s and
/// one-off jobs: the work of thousands of stores without a thread per store, and nothing at all
/// while they are idle (a waiting thread costs no CPU, an idle lane no thread).
///
/// Work runs in arrival order; a lane with many jobs runs a turn of them and queues again behind
/// the rest, so one flooded lane cannot starve the others. Jobs must not wait for work queued
/// behind them in the same pool (that work may need the very thread they hold). The threads start
/// with the first work. A pool that is stopped, or that got no thread from the system, runs work
/// on the submitting thread: late work is done rather than lost.
package final class WorkerPool: Sendable {
    private enum Task {
        case job(@Sendable () -> Void)
        case lane(any PoolLane)
    }

    private struct Queue {
        var tasks = JobQueue<Task>()
        var started = false
        var stopped = false
        /// Threads running (started, not ended).
        var running = 0
    }

    /// The process-wide pool for work that computes and never blocks (publishing to event
    /// streams): one thread per core, named `remvvm-pool`.
    package static let shared = WorkerPool(named: "remvvm-pool", threads: processorCount)

    /// The process-wide pool for work that blocks on storage (snapshots, reads of the journal):
    /// kept apart so that a slow disk never holds up publication. One thread per core, at least
    /// two, named `remvvm-io`.
    package static let blockingWork = WorkerPool(named: "remvvm-io", threads: max(2, processorCount))

    /// The cores this process may use (at least 1).
    package static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The threads' name (each gets a number: `remvvm-pool-1`).
    package let name: String
    /// How many threads the pool runs.
    package let threadCount: Int
    private let queue = Lock(Queue())
    private let workers: [Worker]

    /// A pool of `threads` threads (at least 1) named after `name`, started with the first work.
    package init(named name: String, threads: Int) {
        self.name = name
        threadCount = max(1, threads)
        workers = (1...threadCount).map { Worker(named: "\(name)-\($0)") }
    }

    /// Runs `job` once on a pool thread (or here, see the type's note).
    package func run(_ job: @escaping @Sendable () -> Void) {
        if !enqueue(.job(job)) { job() }
    }

    /// Queues `lane` for a turn (it has jobs and no turn queued or running).
    func schedule(_ lane: any PoolLane) {
        if !enqueue(.lane(lane)) {
            while lane.runTurn() {}
        }
    }

    /// Runs what is queued, then ends the threads; throws ``WorkerError/Code/stopTimedOut`` when
    /// one is still busy after `timeout`. Work submitted afterwards runs on the submitting thread.
    /// The shared pool is never stopped: it lives as long as the process.
    package func stop(timeout: Duration = Worker.defaultStopTimeout) throws(WorkerError) {
        queue.withLock { $0.stopped = true }
        queue.notifyAll()
        guard queue.wait(timeout: timeout, until: { $0.running == 0 }) else {
            throw WorkerError(.stopTimedOut, name: name, timeout: timeout)
        }
    }

    /// Queues `task`; false when the pool is stopped or has no thread to run it.
    private func enqueue(_ task: Task) -> Bool {
        let (accepted, startThreads) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.stopped else { return (false, false) }
            let first = !queue.started
            if first {
                queue.started = true
                queue.running = threadCount
            } else if queue.running == 0 {
                return (false, false)
            }
            queue.tasks.append(task)
            return (true, first)
        }
        guard accepted else { return false }
        if startThreads {
            return startWorkers()
        }
        queue.notifyOne()
        return true
    }

    /// Starts every thread; false (the queued work taken back to be run by the caller) when the
    /// system refused them all.
    private func startWorkers() -> Bool {
        var refused = 0
        for worker in workers {
            do {
                try worker.start { [self] _ in runTasks() }
            } catch {
                refused += 1
            }
        }
        let orphans = queue.withLock { queue -> [Task] in
            queue.running -= refused
            return queue.running == 0 ? queue.tasks.removeAll() : []
        }
        for task in orphans {
            switch task {
            case .job(let job): job()
            case .lane(let lane): while lane.runTurn() {}
            }
        }
        return true
    }

    /// A pool thread: takes the next task until the pool stops and nothing is left.
    private func runTasks() {
        while true {
            let next = queue.withLock(waitingUntil: { !$0.tasks.isEmpty || $0.stopped }) { $0.tasks.popFirst() }
            guard let next else { break }
            switch next {
            case .job(let job):
                job()
            case .lane(let lane):
                if lane.runTurn(), !enqueue(.lane(lane)) {
                    while lane.runTurn() {}
                }
            }
        }
        queue.withLock { $0.running -= 1 }
        queue.notifyAll()
    }
}
#endif
