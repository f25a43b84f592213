import ConcurrencyKit
import Foundation
import Journal
import Logging
import ReMVVM

/// A store that is one replica of a shared, totally ordered action log (`docs/replicas.md`):
/// restored from its local snapshot, then every log entry after it applied through the reducers
/// only (``ReMVVM/Store/replay(_:)``), in version order, by the log's follower — the actions this
/// replica received included. Requests propose their actions (middleware runs once, here) and
/// append them; nothing is reduced before the log ordered it.
final class ReplicaRuntime<State: StoreState & Codable>: Sendable {
    let log: any SharedLog
    /// The local snapshots and the shared log's records, read as one journal.
    let storage: ReplicaStorage
    /// What reads and events see: the store (everything it holds came from the log, committed).
    let publisher: ReplicaPublisher<State>
    private let snapshots: SnapshotWriter<State>
    private let registration: ReplicaRegistration
    private let store: Store<State>
    private let logger: Logger
    /// How the replica ends: whether ``stop()`` ran (it runs once), whether the log was
    /// reachable then, and whether the log turned out not to be the one its snapshots belong to
    /// (then nothing is registered in it, nor released).
    private let ending = Lock((stopped: false, reachable: true, foreign: false))
    /// The follower's last status of the store, as `onStatus` heard it (nil: none yet).
    private let heard = Lock<SharedLogStatus?>(nil)

    /// Restores `store` from the newest local snapshot, registers it with `log` as replica
    /// `name` (retention keeps every record after it) and starts following `log` from there;
    /// renews the registration every `renewal`; after each later snapshot, registers that one and
    /// removes the records `retention` no longer keeps before the oldest snapshot of the replicas
    /// registered (forgetting those whose registration was not renewed for `expiry`; nil: never).
    /// A store other than `default` (`onStopped` given) renews nothing on a thread of its own
    /// (`renewal` nil): its registration is made at load, after each snapshot and at unload;
    /// `onStopped` hears why the log stopped following it for good (deleted there, or an entry it
    /// cannot apply), instead of a critical log line.
    /// Throws ``Journal/JournalError`` when the local storage holds records (a single-node
    /// journal: its versions are not the log's), when its snapshot is ahead of the log (it
    /// belongs to another log), when records after it were removed from the log (retention),
    /// or when the log's threads cannot start.
    init(
        store: Store<State>,
        log: any SharedLog,
        snapshots local: any JournalStorage,
        name: String,
        codec: ActionJournalCodec,
        snapshotEvery: UInt64,
        retention: JournalRetention,
        expiry: Duration?,
        renewal: Duration?,
        onStopped: (@Sendable (String) -> Void)? = nil,
        logger: Logger
    ) throws(JournalError) {
        let initial = store.snapshot
        let recovery = try local.recover()
        // A damaged local snapshot was passed over for an older one (or none): the log has every
        // record after it, so the replica only has more to apply.
        recovery.logDamage(of: local, logger: logger)
        guard recovery.earliestVersion == nil else {
            throw JournalError(
                code: .unusable,
                message: "the data directory holds a single-node journal (versions \(recovery.earliestVersion ?? 0)…\(recovery.lastVersion)); a replica of a shared log keeps only snapshots there: use another data directory"
            )
        }
        // After that check: a single-node journal of an earlier build (no role recorded) that
        // still has records is refused above without being marked as a replica's. One whose
        // retention removed every record cannot be told from a replica's: taken, with a warning.
        if try local.claim(for: .replica) {
            logger.warning(
                "the data directory's journal \(local.location) was written by an earlier build and holds snapshots only: it is taken as this replica's. If it was a server's on its own (not a replica's), stop now: its state is not the shared log's"
            )
        }
        let restored = recovery.snapshot?.version ?? 0
        let recordedLog = try local.sharedLogIdentity()
        let registration = ReplicaRegistration(
            log: log, name: name, snapshot: restored, renewal: renewal ?? ReplicaConfiguration.renewal(forExpiry: expiry), logger: logger
        )
        var checkedLog: String?
        do throws(JournalError) {
            let identity = try log.identity()
            if let recordedLog, recordedLog != identity {
                throw Self.foreignLog(local: local, recorded: recordedLog, found: identity)
            }
            let extent = try registration.register(snapshot: restored).registration.extent
            guard restored <= extent.head else {
                throw JournalError(
                    code: .corrupt,
                    message: "the local snapshot is of version \(restored) but the shared log ends at \(extent.head): the snapshot belongs to another log; move the data directory aside"
                )
            }
            guard extent.holdsEveryRecord(after: restored) else {
                throw JournalError(
                    code: .unusable,
                    message: "the shared log holds versions \(extent.earliest.map(String.init) ?? "none") through \(extent.head): the records after version \(restored) (this replica's \(restored == 0 ? "start, without a local snapshot" : "newest local snapshot")) were removed by journalRetention once every registered replica's snapshot had passed them; copy the data directory of another replica of this log (its snapshot) to \(local.location) and start again"
                )
            }
            checkedLog = identity
        } catch where error.code == .writeFailed {
            // PostgreSQL cannot be reached now: start (healthz 503) and let the follower catch
            // up once it can; the snapshot cannot be checked against the log then, and the
            // replica registers at its first renewal (the follower stops, saying why, if
            // retention removed records it needs meanwhile).
            logger.warning("cannot check the local snapshot against the shared log now (it is checked when the log is reached, before anything is applied): \(error)")
        }
        if let checkedLog, recordedLog == nil {
            try local.recordSharedLogIdentity(checkedLog)
        }
        if let snapshot = recovery.snapshot {
            try store.restore(from: snapshot, keptIn: local)
        }
        self.log = log
        self.store = store
        self.registration = registration
        self.logger = logger
        storage = ReplicaStorage(snapshots: local, log: log)
        publisher = ReplicaPublisher(
            store: store,
            history: JournalHistory(storage: storage, codec: codec, store: store, initial: initial.version == 0 ? initial : nil, logger: logger)
        )
        let ending = ending
        snapshots = SnapshotWriter(storage: local, every: snapshotEvery, newest: restored, logger: logger) {
            [log, logger] version in
            let (stopped, reachable, foreign) = ending.withLock { $0 }
            guard !foreign else { return }
            if stopped, !reachable {
                logger.notice("snapshot of version \(version) written; the shared log cannot be reached, so it is registered there at the next start")
                return
            }
            try registration.register(snapshot: version)
            if let expiry {
                for gone in try log.forgetReplicas(silentFor: expiry) {
                    logger.warning("forgot replica \(gone.name): its registration (snapshot of version \(gone.snapshot)) was not renewed for \(gone.silentSeconds) s, longer than replicaExpiry; retention no longer keeps records for it, so once they are removed it can restart only from another replica's data directory")
                }
            }
            let bounds = retention.sharedLogBounds(now: ActionJournalCodec.now())
            if let removed = try log.removeRecords(keeping: bounds.versions, recordedBefore: bounds.cutoff, ignoringReplicasSilentFor: expiry) {
                logger.info("removed the shared log's records through version \(removed) (journalRetention \(retention), before the oldest registered replica's snapshot)")
            }
        }
        // Proposals refuse what could not be logged; replays are never checked.
        store.addReduceCheck { action in codec.refusal(of: action) }
        // A store loaded on demand says less than the replica's start does.
        let notice: Logger.Level = onStopped == nil ? .notice : .debug
        if restored > 0 {
            logger.log(level: notice, "restored version \(restored) from the local snapshot; following the shared log from there")
        }
        let heard = heard
        try log.start(applied: restored, onStatus: { [store] status in
            heard.withLock { $0 = status }
            heard.notifyAll()
            switch status {
            case .catchingUp:
                break
            case .following:
                logger.log(level: notice, "following the shared log (version \(store.version) applied)")
            case .unavailable(let reason):
                // Every store hears the log's state: the root's line says it once.
                if onStopped == nil {
                    logger.warning("the shared log cannot be used (\(reason)); /healthz answers 503, writes are refused, retrying with backoff")
                }
            case .stopped(let reason?):
                if let onStopped {
                    onStopped(reason)
                } else {
                    logger.critical("stopped applying the shared log: \(reason)")
                }
            case .stopped(nil):
                break
            }
        }, verify: { [store, local, registration] identity, head in
            // Each time the follower reaches the log, before it reads: the log must be the one
            // the snapshots came from, and hold every version applied (not a database restored
            // from an older backup). Otherwise the replica stops following, and registers and
            // releases nothing in that log.
            func refuseTheLog() {
                ending.withLock { $0.foreign = true }
                registration.stop()
            }
            let recorded = try local.sharedLogIdentity()
            if let recorded, recorded != identity {
                refuseTheLog()
                throw Self.foreignLog(local: local, recorded: recorded, found: identity)
            }
            let applied = store.version
            guard head >= applied else {
                refuseTheLog()
                throw JournalError(
                    code: .corrupt,
                    message: "the shared log ends at version \(head), but this replica has applied version \(applied): the log lost versions (a database restored from an older backup?) or is not the one this replica followed, and its state cannot follow it. Move the data directory \(local.location) aside to start this replica from the log"
                )
            }
            if recorded == nil {
                try local.recordSharedLogIdentity(identity)
            }
        }) { [store, snapshots] entries in
            for entry in entries {
                let action: any StoreAction
                do {
                    action = try codec.action(from: entry.record)
                } catch {
                    throw JournalError(
                        code: .corrupt,
                        message: "log version \(entry.record.version) \(codec.unreadable(entry.record, error))"
                    )
                }
                let version = store.replay(action)
                guard version == entry.record.version else {
                    throw JournalError(code: .corrupt, message: "log version \(entry.record.version) was applied as local version \(version): the replica's state does not follow the log")
                }
            }
            if let last = entries.last?.record.version {
                snapshots.writeIfDue(at: last) { store.snapshot }
            }
        }
        if renewal != nil, !registration.startRenewing() {
            log.stop()
            throw JournalError(code: .unusable, message: "could not start the thread that renews this replica's registration in the shared log")
        }
    }

    /// When the log last accepted this replica's registration, in seconds since 1970 (0: never).
    var registrationRenewedAt: Double {
        registration.lastAcceptedSeconds
    }

    /// Whether this replica may take writes and says it is ready: it follows the log, caught up.
    var isReady: Bool {
        log.status == .following
    }

    /// Appends what is queued, stops following (and a removal under way, after its current
    /// transaction), stops renewing and releases the name, writes a snapshot of the state
    /// reached (and registers it) and closes the local storage.
    /// Runs once: the service calls it both before the streams end and when its group stops.
    /// Unless the replica follows the log at that moment, neither the release nor the last
    /// snapshot's registration waits for it (each would wait for a connection timeout, beyond
    /// a container's grace period; a replica still catching up may never have reached it).
    func stop() {
        let reachable = log.status == .following
        let (first, foreign) = ending.withLock { ending -> (Bool, Bool) in
            guard !ending.stopped else { return (false, ending.foreign) }
            ending.stopped = true
            ending.reachable = reachable  // the last snapshot's registration reads it
            return (true, ending.foreign)
        }
        guard first else { return }
        log.stop()
        if foreign {
            registration.stop()
        } else if reachable {
            registration.release()
        } else {
            registration.stop()
            logger.notice("this replica does not follow the shared log now: its name is not released, nor its last snapshot registered (the next run under the name may warn of another process)")
        }
        snapshots.finish(with: store.snapshot)
        storage.close()
    }

    /// Waits until the follower says the store is caught up with the head it read (true), or
    /// stopped, or `timeout` passes (false).
    func waitUntilFollowing(timeout: Duration) -> Bool {
        _ = heard.wait(timeout: timeout) { status in
            switch status {
            case .following, .stopped: true
            case .catchingUp, .unavailable, nil: false
            }
        }
        return heard.withLock { $0 } == .following
    }

    /// Ends a store deleted from the log: stops following it and closes its local storage,
    /// writing and registering nothing (its rows in the log and its local snapshots go). Runs
    /// once, like ``stop()``, and instead of it.
    func discard() {
        let first = ending.withLock { ending -> Bool in
            guard !ending.stopped else { return false }
            ending.stopped = true
            ending.foreign = true  // a snapshot being written registers nothing
            return true
        }
        guard first else { return }
        log.stop()
        registration.stop()
        snapshots.waitForWriting()
        storage.close()
    }

    /// The error of a data directory whose snapshots belong to another shared log.
    private static func foreignLog(local: any JournalStorage, recorded: String, found: String) -> JournalError {
        JournalError(
            code: .corrupt,
            message: "the snapshots in \(local.location) belong to the shared log \(recorded), but this database holds the log \(found) (another database, or one made anew): a replica must not apply one log's versions over another's state. Give this replica an empty data directory (or a copy of a replica's of this log), or point postgresURL at the log it belongs to"
        )
    }
}

/// What a replica's reads and events see: its store — every version in it was read from the
/// log, hence committed — with the log as the history behind the event ring.
struct ReplicaPublisher<State: StoreState & Codable>: StatePublisher {
    let store: Store<State>
    let history: (any VersionHistory<State>)?

    var snapshot: StoreSnapshot<State> { store.snapshot }

    @discardableResult
    func addPublicationHandler(_ handler: @escaping @Sendable (StatePublication<State>) -> Void) -> StoreSnapshot<State> {
        store.addPublicationHandler(handler)
    }
}
