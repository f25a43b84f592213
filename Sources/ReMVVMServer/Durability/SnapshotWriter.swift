import ConcurrencyKit
import Journal
import Logging
import ReMVVM
import Synchronization

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
    /// Whether a snapshot is being written, the newest written, the version the newest snapshot
    /// taken was due at (written, being written or waiting), and the snapshot taken while another
    /// was being written, which is written right after it.
    private let progress: Lock<Progress>
    private struct Progress {
        var writing = false
        var newest: UInt64
        var due: UInt64
        var waiting: StoreSnapshot<State>?
    }
    private let pool: WorkerPool
    /// The first version a snapshot is due at (``Progress/due`` + `every`), read without the lock:
    /// the commit thread asks after every store's part of a commit, and a lock per part, cold when
    /// the commit spans many stores, cost more than the answer (almost always "not yet").
    private let nextDue: Atomic<UInt64>

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
        progress = Lock(Progress(newest: newest, due: newest))
        nextDue = Atomic(newest &+ max(1, every))
    }

    /// The first version a snapshot may be due at: ``writeIfDue(at:_:)`` does nothing below it.
    var nextDueVersion: UInt64 {
        nextDue.load(ordering: .relaxed)
    }

    /// Takes `current()` when `version` is `every` or more past the version the last snapshot was
    /// due at, and writes it as a job of the pool; when one is being written, right after it (a
    /// snapshot that falls due meanwhile is taken then, not skipped: one waits at most, the
    /// newest).
    func writeIfDue(at version: UInt64, _ current: @escaping @Sendable () -> StoreSnapshot<State>) {
        // Versions only grow, and `nextDue` only after `due` did (under the lock): a version
        // below it is not due.
        guard version >= nextDue.load(ordering: .relaxed) else { return }
        let due = progress.withLock { progress -> Bool in
            guard version >= progress.due + every else { return false }
            progress.due = version
            nextDue.store(version &+ every, ordering: .relaxed)
            return true
        }
        guard due else { return }
        let snapshot = current()
        let startsWriting = progress.withLock { progress -> Bool in
            if progress.writing {
                if snapshot.version > progress.waiting?.version ?? 0 { progress.waiting = snapshot }
                return false
            }
            progress.writing = true
            return true
        }
        guard startsWriting else { return }
        pool.run { [self] in
            var next: StoreSnapshot<State>? = snapshot
            while let snapshot = next {
                write(snapshot)
                next = progress.withLock { progress in
                    defer { progress.waiting = nil }
                    if progress.waiting == nil { progress.writing = false }
                    return progress.waiting
                }
            }
            progress.notifyAll()
        }
    }

    /// Waits for a snapshot being written (up to 30 s), then writes `snapshot` if it is newer
    /// than the newest: for a clean stop.
    func finish(with snapshot: StoreSnapshot<State>) {
        waitForWriting()
        write(snapshot)
    }

    /// The version of the newest snapshot stored (written, or there at the start; 0 for none).
    var newest: UInt64 {
        progress.withLock { $0.newest }
    }

    /// Waits for a snapshot being written (up to 30 s): before the storage closes.
    func waitForWriting() {
        _ = progress.wait(timeout: .seconds(30)) { !$0.writing }
    }

    /// Waits for a snapshot being written (up to 30 s), then returns `snapshot` encoded when it is
    /// newer than the newest, for the caller to store together with other stores' (a stop of many
    /// stores: one transaction); nil when it is not newer, or cannot be encoded (logged).
    func finishLeavingWrite(with snapshot: StoreSnapshot<State>) -> JournalSnapshot? {
        waitForWriting()
        return encoded(snapshot)
    }

    /// `snapshot` as stored, when newer than the newest stored; nil otherwise, or when its state
    /// cannot be encoded (logged).
    private func encoded(_ snapshot: StoreSnapshot<State>) -> JournalSnapshot? {
        guard snapshot.version > progress.withLock({ $0.newest }) else { return nil }
        do {
            return JournalSnapshot(version: snapshot.version, state: try JSONCoding.encode(snapshot.state), time: ActionJournalCodec.now())
        } catch {
            logger.error("snapshot of version \(snapshot.version) failed: \(error)")
            return nil
        }
    }

    private func write(_ snapshot: StoreSnapshot<State>) {
        guard let encoded = encoded(snapshot) else { return }
        do {
            try storage.saveSnapshot(encoded)
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
