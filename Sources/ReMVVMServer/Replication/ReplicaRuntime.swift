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
    let snapshots: SnapshotWriter<State>
    let registration: ReplicaRegistration
    let store: Store<State>
    let logger: Logger
    /// How the replica ends (``ReplicaEnding``).
    let ending = Lock(ReplicaEnding())
    /// The follower's last status of the store, as `onStatus` heard it (nil: none yet).
    let heard = Lock<SharedLogStatus?>(nil)

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
        let recovery = try Self.recoverSnapshotsOnly(from: local, logger: logger)
        let restored = recovery.snapshot?.version ?? 0
        let registration = ReplicaRegistration(
            log: log, name: name, snapshot: restored, renewal: renewal ?? ReplicaConfiguration.renewal(forExpiry: expiry), logger: logger
        )
        try Self.check(local, restoredAt: restored, against: log, registeringWith: registration, logger: logger)
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
        snapshots = SnapshotWriter(
            storage: local, every: snapshotEvery, newest: restored, logger: logger,
            afterWrite: Self.afterSnapshot(ending: ending, registration: registration, log: log, retention: retention, expiry: expiry, logger: logger)
        )
        // Proposals refuse what could not be logged; replays are never checked.
        store.addReduceCheck(handingOn: codec.reduceCheck)
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
        }, verify: Self.verifier(of: local, store: store, ending: ending, registration: registration)) { [store, snapshots] entries in
            try Self.apply(entries, to: store, codec: codec)
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
}
