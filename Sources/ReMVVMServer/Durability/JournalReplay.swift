import ConcurrencyKit
import DequeModule
import Foundation
import Journal
import Logging
import MicroHTTP
import ReMVVM

/// What the event hub tells a replay that has sent its stream every version through a given one.
enum ReplayContinuation<State: Sendable>: Sendable {
    /// The stream is queued at the hub, which sends it what follows (the rest of the ring, then
    /// live): the replay is done.
    case handedOver
    /// The next versions, from the ring (not necessarily all it holds): send them, ask again.
    case ring([StatePublication<State>])
    /// The ring has moved past the next version: rebuild from the journal up to this one (the
    /// newest the hub has published; the journal may hold newer ones the hub has not seen yet).
    case journal(through: UInt64)
    /// The hub has stopped.
    case stopped
}

/// Serves event streams that resume after a version the hub's ring no longer holds, from the
/// journal (`docs/event-delivery.md`, "Resuming from the journal"): the state at that version is
/// rebuilt from a snapshot and the journal's records through the reducers only, each later
/// version is sent as the same `state` event live subscribers got (``StateFrameEncoder``), and
/// once the versions left are in the ring the stream joins the hub (``EventHub/continueReplay(of:after:ringLimit:)``)
/// with no gap and no repeat.
///
/// The work runs as jobs on a pool for blocking work (``WorkerPool/blockingWork``, at most
/// `threads` of them at once, started when such a stream needs one), never on the hub's lane or
/// the store's thread: streams take turns a chunk at a time, and a stream whose client
/// has not read what it was sent waits (``MicroHTTP/EventStream/whenPending(atMost:_:)``) without
/// holding a thread. A stream's memory is bounded by its backlog limit plus one chunk.
final class JournalReplay<State: StoreState & Encodable>: Sendable {
    private struct Queue {
        var runnable: Deque<ReplayJob<State>> = []
        /// Jobs waiting for their client to read, by stream.
        var waiting: [ObjectIdentifier: ReplayJob<State>] = [:]
        /// Runner jobs queued or running on the pool.
        var runners = 0
        var stopped = false
        var streams = 0
        var versions = 0
    }

    private let queue = Lock(Queue())
    private let context: ReplayJob<State>.Context
    private let maxThreads: Int
    private let pool: WorkerPool
    private let logger: Logger
    private let reset: @Sendable (EventStream, Bool) -> Bool

    /// - Parameters:
    ///   - chunkBytes: frames are sent in chunks of about this many bytes.
    ///   - retryField: the `retry:` line that starts every stream.
    ///   - continuation: the hub's ``EventHub/continueReplay(of:after:ringLimit:)``.
    ///   - reset: queues a stream at the hub to go on with the newest state marked as a reset
    ///     (given whether the stream had its `retry:`); false when the hub has stopped.
    init(
        history: any VersionHistory<State>,
        frames: StateFrameEncoder,
        chunkBytes: Int,
        retryField: [UInt8],
        logger: Logger,
        threads: Int = max(1, WorkerPool.processorCount / 2),
        pool: WorkerPool = .blockingWork,
        continuation: @escaping @Sendable (EventStream, UInt64, Int) -> ReplayContinuation<State>,
        reset: @escaping @Sendable (EventStream, Bool) -> Bool
    ) {
        context = ReplayJob.Context(
            history: history,
            frames: frames,
            chunkBytes: chunkBytes,
            retryField: retryField,
            continuation: continuation
        )
        maxThreads = max(1, threads)
        self.pool = pool
        self.logger = logger
        self.reset = reset
    }

    /// Whether the journal can rebuild every version after `version` (what ``start(_:after:)``
    /// checks first). Reads the journal on the calling thread.
    func canRebuild(after version: UInt64) -> Bool {
        context.history.base(forVersionsAfter: version) != nil
    }

    /// Starts sending `stream` every version after `version`, if the journal can rebuild them;
    /// false (nothing sent) if it cannot. Reads the journal on the calling thread.
    func start(_ stream: EventStream, after version: UInt64) -> Bool {
        guard let base = context.history.base(forVersionsAfter: version) else { return false }
        let job = ReplayJob(stream: stream, resumeAfter: version, base: base)
        let (accepted, startRunner) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.stopped else { return (false, false) }
            queue.streams += 1
            return (true, makeRunnable(job, in: &queue))
        }
        guard accepted else { return false }
        logger.debug("event stream resumes after version \(version) from the journal (snapshot \(base.version))")
        if startRunner { pool.run { [self] in run() } }
        return true
    }

    /// Ends the streams still being replayed (cleanly: what was sent is delivered; their clients
    /// resume from their last version) and waits for the runners to end.
    func stop() {
        let jobs = queue.withLock { queue in
            queue.stopped = true
            defer {
                queue.runnable.removeAll()
                queue.waiting.removeAll()
            }
            return Array(queue.runnable) + Array(queue.waiting.values)
        }
        queue.notifyAll()
        for job in jobs {
            job.stream.close()
        }
        let (streams, versions) = queue.withLock(waitingUntil: { $0.runners == 0 }) { ($0.streams, $0.versions) }
        if streams > 0 {
            logger.notice("journal replay: \(streams) event streams resumed from the journal, \(versions) versions rebuilt and sent")
        }
    }

    /// Queues `job` to run; true when a runner must be started for it (fewer than `maxThreads`
    /// are queued or running, counted as started).
    private func makeRunnable(_ job: ReplayJob<State>, in queue: inout Queue) -> Bool {
        queue.runnable.append(job)
        guard queue.runners < maxThreads else { return false }
        queue.runners += 1
        return true
    }

    /// A runner: steps the runnable jobs in turn until none is left (or the replay stops), then
    /// ends, leaving its pool thread to other work.
    private func run() {
        while true {
            let next = queue.withLock { queue -> ReplayJob<State>? in
                guard !queue.stopped, let job = queue.runnable.popFirst() else {
                    queue.runners -= 1
                    return nil
                }
                return job
            }
            guard var job = next else { break }
            let outcome: ReplayJob<State>.Outcome
            do {
                outcome = try job.step(context)
            } catch let error as JournalError where error.code != .corrupt {
                // Storage may recover: the client's reconnect resumes again (or resets).
                logger.notice("event stream resuming after version \(job.resumeAfter) ended at version \(job.version): \(error); it resumes again (or resets) on reconnect")
                job.stream.close()
                outcome = .finished
            } catch {
                // A record that cannot be read (damaged on disk, or an action this build cannot
                // decode), or one removed meanwhile: a reconnect would meet it again (and again), so
                // the stream goes on from the newest state, marked reset.
                logger.warning("event stream resuming after version \(job.resumeAfter) cannot be rebuilt past version \(job.version): \(error); it goes on with the current state marked as a reset")
                if !reset(job.stream, job.hasSentRetry) { job.stream.close() }
                outcome = .finished
            }
            requeue(job, outcome)
        }
        queue.notifyAll()
    }

    /// Puts `job` back after a step: to run again, to wait for its client, or away.
    private func requeue(_ job: ReplayJob<State>, _ outcome: ReplayJob<State>.Outcome) {
        let id = ObjectIdentifier(job.stream)
        let kept = queue.withLock { queue -> Bool in
            guard !queue.stopped, outcome != .finished else {
                queue.versions += job.sentVersions
                return false
            }
            if case .waitForRoom = outcome {
                queue.waiting[id] = job
            } else {
                queue.runnable.append(job)
            }
            return true
        }
        guard kept else {
            if outcome != .finished { job.stream.close() }  // stopped meanwhile
            return
        }
        if case .waitForRoom(let threshold) = outcome {
            // Registered after the job is parked: the handler may run at once.
            job.stream.whenPending(atMost: threshold) { [weak self] in self?.wake(id) }
        }
    }

    /// The client of a waiting job has read (or its stream ended): the job runs again.
    private func wake(_ id: ObjectIdentifier) {
        let startRunner = queue.withLock { queue -> Bool in
            guard !queue.stopped, let job = queue.waiting.removeValue(forKey: id) else { return false }
            return makeRunnable(job, in: &queue)
        }
        if startRunner { pool.run { [self] in run() } }
    }
}
