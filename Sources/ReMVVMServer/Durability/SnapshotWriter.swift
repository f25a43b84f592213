import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// Writes a store's snapshots to local storage: every `every` versions, off the thread that
/// reports versions (encoding a large state must not hold up acknowledgements), at most one at a
/// time, and once more at stop. Shared by the single-node journal (``DurableRuntime``) and the
/// replicas of a shared log (``ReplicaRuntime``).
final class SnapshotWriter<State: StoreState & Codable>: Sendable {
    private let storage: any JournalStorage
    private let every: UInt64
    private let logger: Logger
    /// Runs after each snapshot written (retention), with its version.
    private let afterWrite: @Sendable (UInt64) throws -> Void
    /// Whether a snapshot is being written, and the newest written.
    private let progress: Lock<(writing: Bool, newest: UInt64)>
    private let pool: WorkerPool

    /// - Parameters:
    ///   - newest: the version of the newest snapshot already stored (0 for none).
    ///   - afterWrite: what follows each snapshot written (removing records the retention no
    ///     longer keeps); its errors are logged.
    ///   - pool: where snapshots are written (a pool for blocking work: never the publishing one).
    init(
        storage: any JournalStorage, every: UInt64, newest: UInt64, logger: Logger,
        pool: WorkerPool = .blockingWork,
        afterWrite: @escaping @Sendable (UInt64) throws -> Void = { _ in }
    ) {
        self.pool = pool
        self.storage = storage
        self.every = max(1, every)
        self.logger = logger
        self.afterWrite = afterWrite
        progress = Lock((writing: false, newest: newest))
    }

    /// Writes `current()` as a job of the pool when `version` is `every` or more past the newest
    /// snapshot and none is being written.
    func writeIfDue(at version: UInt64, _ current: @escaping @Sendable () -> StoreSnapshot<State>) {
        let due = progress.withLock { progress -> Bool in
            guard !progress.writing, version >= progress.newest + every else { return false }
            progress.writing = true
            return true
        }
        guard due else { return }
        let snapshot = current()
        pool.run { [self] in
            write(snapshot)
            progress.withLock { $0.writing = false }
            progress.notifyAll()
        }
    }

    /// Waits for a snapshot being written (up to 30 s), then writes `snapshot` if it is newer
    /// than the newest: for a clean stop.
    func finish(with snapshot: StoreSnapshot<State>) {
        _ = progress.wait(timeout: .seconds(30)) { !$0.writing }
        write(snapshot)
    }

    private func write(_ snapshot: StoreSnapshot<State>) {
        guard snapshot.version > progress.withLock({ $0.newest }) else { return }
        do {
            let state = try JSONCoding.encode(snapshot.state)
            try storage.saveSnapshot(JournalSnapshot(version: snapshot.version, state: state, time: ActionJournalCodec.now()))
            progress.withLock { $0.newest = max($0.newest, snapshot.version) }
            logger.debug("snapshot of version \(snapshot.version) written")
        } catch {
            logger.error("snapshot of version \(snapshot.version) failed: \(error)")
            return
        }
        do {
            try afterWrite(snapshot.version)
        } catch {
            logger.error("snapshot of version \(snapshot.version) written; what follows it (retention) failed, to be tried again after the next one: \(error)")
        }
    }
}
