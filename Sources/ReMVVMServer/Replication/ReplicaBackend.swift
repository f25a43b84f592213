import ConcurrencyKit
import Journal
import Logging
import MicroHTTP
import ReMVVM

/// A store that is one replica of a shared, ordered action log (``ReplicaRuntime``,
/// `docs/replicas.md`): restored from its local snapshot and following the log; requests
/// propose their actions to the log (middleware runs once, here) and are answered once this
/// replica applied them; writes get 503 until it follows the log, caught up.
final class ReplicaBackend<State: StoreState & Codable>: RuntimeBackend {
    let store: Store<State>
    /// The shared log, the replica's name and its local snapshots.
    let replication: ReplicaConfiguration
    let codec: ActionJournalCodec
    let logger: Logger
    let keptAnswers: (any JournalStorage)?
    /// The service's store `default`, or another store of the log.
    let role: ReplicaRole
    private let keeping: JournalKeeping
    /// Set once by ``start(keys:metrics:)``.
    private let started = RuntimeSlot<ReplicaRuntime<State>>()

    /// Makes `store` a replica of `replication`'s log, with the snapshot interval and retention
    /// of `configuration`; nothing is read before ``start(keys:metrics:)``.
    init(
        store: Store<State>,
        replication: ReplicaConfiguration,
        codec: ActionJournalCodec,
        configuration: ServiceConfiguration,
        role: ReplicaRole = .root,
        logger: Logger
    ) {
        self.store = store
        self.replication = replication
        self.codec = codec
        self.role = role
        self.logger = logger
        keptAnswers = ReplicaStorage(snapshots: replication.snapshots, log: replication.log)
        keeping = JournalKeeping(configuration)
    }

    var isDurable: Bool { true }

    var runtime: ReplicaRuntime<State>? {
        started.runtime
    }

    /// The log (the log through which several replicas share one store).
    var log: any SharedLog { replication.log }

    func validate() throws {
        try replication.validate()
    }

    /// Restores the store from the local snapshot, registers the replica and follows the log;
    /// the log's commits of the store `default` feed the commit metrics (one transaction may
    /// carry several stores: counted per store, it would be counted several times).
    func start(keys: IdempotencyKeys, metrics: ServiceMetrics?) throws {
        var onStopped: (@Sendable (String) -> Void)?
        if case .store(let stopped) = role { onStopped = stopped }
        let made = try started.start {
            try ReplicaRuntime(
                store: store, log: replication.log, snapshots: replication.snapshots, name: replication.name, codec: codec,
                snapshotEvery: keeping.snapshotEvery, retention: keeping.retention, expiry: replication.expiry,
                renewal: onStopped == nil ? replication.renewal : nil, onStopped: onStopped, logger: logger
            )
        }
        guard let runtime = made else { return }
        guard onStopped == nil else {
            // Loaded on demand, it is served at once: it first applies what the log held when the
            // request came, so that a client reads here what it wrote on another replica.
            guard runtime.waitUntilFollowing(timeout: Self.catchUpTimeout) else {
                runtime.stop()
                throw JournalError(
                    code: .writeFailed,
                    message: "the store did not catch up with the shared log within \(Self.catchUpTimeout) (\(replication.log.status))"
                )
            }
            return
        }
        guard let metrics else { return }
        replication.log.onCommit { actions, duration in
            metrics.journalCommitted(actions: actions, duration: duration)
        }
    }

    /// How long loading a store on demand waits for it to apply what the log holds.
    static var catchUpTimeout: Duration { .seconds(10) }

    /// A store deleted from the log: stops following it, writing and registering nothing.
    func end() {
        runtime?.discard()
    }

    /// Stops like ``stop()``, leaving its last snapshot to `batch`, which stores every store's
    /// of the batch locally in one transaction, then registers them in the log in one.
    func stop(id: StoreID, batch: StoreStopBatch) {
        if let leftover = runtime?.stopLeavingRegistration() {
            batch.add(leftover, of: id)
        }
    }

    /// `ok` only while it follows the log, caught up (load balancers send it no traffic else).
    var health: StoreHealth {
        var health = StoreHealth(status: .ok, replica: replication.name)
        switch log.status {
        case .following: break
        case .catchingUp: health.status = .catchingUp
        case .unavailable(let why): (health.status, health.reason) = (.unavailable, why)
        case .stopped(let why): (health.status, health.reason) = (.stopped, why ?? "shutting down")
        }
        return health
    }

    /// Its lag behind the log head it knows of, whether it follows the log, and when the log last
    /// accepted its registration.
    var gauges: [BackendGauge] {
        [
            BackendGauge(label: "remvvm_replica_lag_versions", value: Double(lagVersions)),
            BackendGauge(label: "remvvm_replica_following", value: log.status == .following ? 1 : 0),
            BackendGauge(label: "remvvm_replica_registration_renewed_timestamp_seconds", value: runtime?.registrationRenewedAt ?? 0),
        ]
    }

    /// The newest version of the log it knows of, less the one it applied.
    /// A write's answer waits for this store to apply its versions (``dispatch(key:ifMatch:plan:in:)``),
    /// a resumed stream for the version it names (``afterApplying(_:_:)``): both need it followed.
    var pendingAnswersNeedTheStore: Bool { true }

    var lagVersions: UInt64 {
        let log = log
        let known = log.knownHead
        return known - min(known, log.applied)
    }

    func actionLog(after version: UInt64, limit: Int) throws(JournalError) -> (records: [JournalRecord], earliest: UInt64?) {
        let storage = runtime?.storage ?? ReplicaStorage(snapshots: replication.snapshots, log: replication.log)
        return try storage.actionLog(after: version, limit: limit)
    }

    /// How long a stream resuming on a replica waits for the replica to apply the client's last
    /// version before it starts with the reset instead.
    static var resumeTimeout: Duration { .seconds(10) }

    /// `respond()`'s answer, once this replica has applied `version` when that version is in the
    /// shared log but not applied here yet: a client that read it on another replica and
    /// reconnects here (behind a load balancer) resumes where it was, instead of being reset to an
    /// older state. At once otherwise, and after ``resumeTimeout`` whatever happened (the stream
    /// then starts with the reset, as for any version this replica does not have).
    func afterApplying(_ version: UInt64, _ respond: @escaping @Sendable () -> Response) -> Response {
        guard version > store.version, version <= log.knownHead else {
            return respond()
        }
        let pending = PendingResponse()
        log.whenApplied(version, timeout: Self.resumeTimeout) { _ in
            pending.complete(respond())
        }
        return Response(pending: pending)
    }
}

/// What a ``ReplicaBackend`` is to its service.
enum ReplicaRole: Sendable {
    /// The store `default`, made with the service: its registration is renewed on a thread of
    /// its own, its appends feed the journal's commit metrics, and a stop of its following is
    /// logged as critical.
    case root
    /// Another store of the log, loaded on demand (``ServedStoreLoader``): registered at load,
    /// after each snapshot and at unload; `onStopped` hears why the log stopped following it
    /// for good (deleted there, or an entry it cannot apply).
    case store(onStopped: @Sendable (String) -> Void)
}
