// Linux only, like ``WorkerPool``.
#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Jobs that run one at a time, in the order submitted, on the threads of a ``WorkerPool``, with
/// the state only they touch (`Confined`): what a thread of its own with a private inbox gave,
/// without the thread. An idle lane holds no thread and costs no wake-up.
///
/// The inbox is bounded (``capacity`` jobs): a submission beyond it is refused (``Submission/full``)
/// rather than queued without limit. A lane takes turns with the pool's other work, at most
/// ``jobsPerTurn`` jobs a turn.
///
/// ```swift
/// let lane = SerialLane(named: "events", confined: Subscribers())
/// lane.submit { subscribers in subscribers.send(frame) }
/// try lane.shutDown(timeout: .seconds(5))
/// ```
///
/// Unchecked `Sendable`: `confined` is read and written only by the jobs, inside ``runTurn()``,
/// and a lane has at most one turn queued or running at a time (`scheduled` is set, under the
/// inbox lock, by the submission that finds the lane idle, and cleared by the turn that finds no
/// job left): the lock hands the state from one turn's thread to the next.
package final class SerialLane<Confined>: @unchecked Sendable, PoolLane {
    /// A job: gets the lane's confined state.
    package typealias Job = @Sendable (inout Confined) -> Void

    /// What became of a submitted job.
    package enum Submission: Sendable, Equatable {
        /// Queued; it will run after the jobs before it.
        case accepted
        /// Refused: ``capacity`` jobs wait already.
        case full
        /// Refused: the lane was shut down.
        case closed
    }

    private struct Inbox {
        var jobs = JobQueue<Job>()
        /// A turn is queued at the pool or running.
        var scheduled = false
        var closed = false
        /// Threads waiting in ``waitUntilIdle(timeout:)``.
        var idleWaiters = 0

        var isIdle: Bool { !scheduled }
    }

    /// The most jobs one turn runs before the lane queues again behind the pool's other work.
    package static var jobsPerTurn: Int { 16 }

    /// The lane's name, for errors.
    package let name: String
    /// The most jobs that may wait.
    package let capacity: Int
    private let pool: WorkerPool
    private let inbox = Lock(Inbox())
    private var confined: Confined

    /// A lane on `pool` whose jobs share `confined`; at most `capacity` jobs wait.
    package init(named name: String, pool: WorkerPool = .shared, capacity: Int = 1_024, confined: Confined) {
        self.name = name
        self.pool = pool
        self.capacity = max(1, capacity)
        self.confined = confined
    }

    /// Queues `job` behind the lane's other jobs.
    @discardableResult
    package func submit(_ job: @escaping Job) -> Submission {
        let (submission, schedule) = inbox.withLock { inbox -> (Submission, Bool) in
            guard !inbox.closed else { return (.closed, false) }
            guard inbox.jobs.count < capacity else { return (.full, false) }
            inbox.jobs.append(job)
            defer { inbox.scheduled = true }
            return (.accepted, !inbox.scheduled)
        }
        if schedule { pool.schedule(self) }
        return submission
    }

    /// How many jobs wait (not counting one running).
    package var pendingCount: Int {
        inbox.withLock { $0.jobs.count }
    }

    func runTurn() -> Bool {
        let outer = pthread_getspecific(Self.runningLaneKey)
        pthread_setspecific(Self.runningLaneKey, Unmanaged.passUnretained(self).toOpaque())
        var ran = 0
        // One job at a time off the inbox (no array per turn): jobs submitted meanwhile join this
        // turn up to its limit.
        while ran < Self.jobsPerTurn, let job = inbox.withLock({ $0.jobs.popFirst() }) {
            job(&confined)
            ran += 1
        }
        pthread_setspecific(Self.runningLaneKey, outer)
        let (more, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            if !inbox.jobs.isEmpty { return (true, false) }
            inbox.scheduled = false
            return (false, inbox.idleWaiters > 0)
        }
        if wake { inbox.notifyAll() }
        return more
    }

    /// Waits until no job waits or runs; false after `timeout`. Jobs may be submitted meanwhile.
    package func waitUntilIdle(timeout: Duration) -> Bool {
        inbox.withLock { $0.idleWaiters += 1 }
        defer { inbox.withLock { $0.idleWaiters -= 1 } }
        return inbox.wait(timeout: timeout, until: \.isIdle)
    }

    /// Refuses new jobs (``Submission/closed``), lets those queued run, and waits for them; throws
    /// ``WorkerError/Code/stopTimedOut`` when they have not finished after `timeout` (they still
    /// run; nobody waits for them). Called from one of the lane's own jobs, it only closes the lane.
    package func shutDown(timeout: Duration = Worker.defaultStopTimeout) throws(WorkerError) {
        inbox.withLock { $0.closed = true }
        guard !Self.isRunningOnLane(self) else { return }
        guard waitUntilIdle(timeout: timeout) else {
            throw WorkerError(.stopTimedOut, name: name, timeout: timeout)
        }
    }

    /// Whether the calling thread runs one of `lane`'s jobs right now.
    private static func isRunningOnLane(_ lane: SerialLane) -> Bool {
        pthread_getspecific(runningLaneKey) == Unmanaged.passUnretained(lane).toOpaque()
    }

    /// The thread-specific slot that holds the lane whose jobs the thread runs (unretained: only
    /// compared, never followed).
    private static var runningLaneKey: pthread_key_t { laneKey }
}

/// Made once, for every lane type (a static stored property of a generic type is not allowed).
private let laneKey: pthread_key_t = {
    var key = pthread_key_t()
    // Fails only when the process has used up PTHREAD_KEYS_MAX (1,024) keys, at its start.
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()
#endif
