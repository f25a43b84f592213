import Journal
import MicroHTTP
import ReMVVM

/// Where one served store keeps its versions, and how it dispatches: in memory
/// (``MemoryBackend``), in a journal of its own (``JournalBackend``), or as one replica of a
/// shared log (``ReplicaBackend``). A ``ServedStore`` holds one, and its routes ask it the only
/// things that differ between those: dispatching a planned request, the publisher reads and events
/// see, the action log and resuming history, health, start and stop. Route code has no mode
/// branches: a new kind of storage is a new conformance.
protocol StoreBackend<State>: AnyObject, Sendable {
    /// The state of the store it keeps.
    associatedtype State: StoreState & Codable

    /// The store it keeps.
    var store: Store<State> { get }

    /// Where the answers kept for idempotency keys live beside the actions (the journal, or the
    /// shared log with the replica's snapshots), or nil: in memory.
    var keptAnswers: (any JournalStorage)? { get }

    /// Whether versions outlive the process (a journal or a shared log): then a write can be
    /// refused with 503 while they cannot be made durable.
    var isDurable: Bool { get }

    /// Throws ``ServiceConfigurationError`` for settings it cannot run with; called before
    /// ``start(keys:metrics:)``.
    func validate() throws

    /// Restores the store (from the journal, or the replica's snapshot and the log) and starts
    /// keeping versions; idempotent. Throws `JournalError` when the storage cannot be read:
    /// the store must not be served then.
    func start(keys: IdempotencyKeys, metrics: ServiceMetrics?) throws

    /// Makes durable what is queued, writes the last snapshot and closes the storage; idempotent.
    func stop()

    /// Stops a store that was deleted: nothing of it needs to be kept (by default, ``stop()``).
    func end()

    /// ``stop()`` of the store `id`, one of many stopped together: what can be done for all of
    /// them at once it leaves to `batch` (by default, nothing: ``stop()``).
    func stop(id: StoreID, batch: StoreStopBatch)

    /// Where reads and events get states: only what is durable with a journal, what the replica
    /// applied from the log, the store itself in memory.
    var publisher: any StatePublisher<State> { get }

    /// Dispatches a request whose body was decoded: `key` (already validated) makes it happen at
    /// most once, `ifMatch` (the raw `If-Match` field) makes it conditional on the version, and
    /// `plan` gives the actions (or the answer instead) on the state they will be dispatched on.
    /// The answer is sent only once what it names is durable.
    func dispatch(
        key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan, in served: ServedStore<State>
    ) -> Response

    /// Up to `limit` reduced actions after `version`, oldest first, and the oldest version kept
    /// (`GET /actions`). Throws `JournalError` when the storage cannot be read (code `.corrupt`
    /// for a damaged journal).
    func actionLog(after version: UInt64, limit: Int) throws(JournalError) -> (records: [JournalRecord], earliest: UInt64?)

    /// `respond()`'s answer once a stream resuming after `version` can be served here: at once,
    /// except on a replica that has not applied a version the shared log holds yet.
    func afterApplying(_ version: UInt64, _ respond: @escaping @Sendable () -> Response) -> Response

    /// Whether it can take writes now, and why not (`GET /healthz`).
    var health: StoreHealth { get }

    /// Figures of its own for `GET /metrics` (a replica's lag), read at scrape time.
    var gauges: [BackendGauge] { get }

    /// How many versions a replica knows to be in the shared log and has not applied yet (0 for
    /// the others).
    var lagVersions: UInt64 { get }

    /// Whether a pending answer of this backend needs its store loaded until it completes: a
    /// replica answers a write once its store applied what the write appended, which an unload
    /// meanwhile would stop. The store's lease is then held until the answer is complete.
    var pendingAnswersNeedTheStore: Bool { get }
}

extension StoreBackend {
    func validate() throws {}

    func end() {
        stop()
    }

    func stop(id: StoreID, batch: StoreStopBatch) {
        stop()
    }

    func afterApplying(_ version: UInt64, _ respond: @escaping @Sendable () -> Response) -> Response {
        respond()
    }

    var gauges: [BackendGauge] { [] }

    var lagVersions: UInt64 { 0 }

    var pendingAnswersNeedTheStore: Bool { false }
}

/// How a store's backend is doing, as `GET /healthz` shows it.
struct StoreHealth: Sendable, Equatable {
    /// The `status` field: only ``ok`` is ready for writes.
    enum Status: String, Sendable {
        case ok
        /// Journal commits fail: writes get 503, reads go on.
        case failing
        /// A replica that has not caught up with the shared log.
        case catchingUp = "catching-up"
        /// A replica that cannot reach the shared log.
        case unavailable
        /// A replica that stopped following the log.
        case stopped
        /// A store this server cannot load until someone acts (a replica's store whose records
        /// the log removed before this replica registered it); not loaded.
        case unloadable
    }

    /// How it is doing.
    var status: Status
    /// Why it is not ``Status/ok``.
    var reason: String?
    /// The replica's name, for a replica of a shared log.
    var replica: String?

    /// Ready for writes.
    static let ok = StoreHealth(status: .ok)
}

/// One gauge a backend adds to `GET /metrics`: its family name (with a help text in
/// ``MetricFamilies``) and its value now.
struct BackendGauge: Sendable, Equatable {
    /// The metric family, e.g. `remvvm_replica_lag_versions`.
    let label: String
    /// Its value at this scrape.
    let value: Double
}

extension JournalStorage {
    /// Up to `limit` records after `version`, oldest first, and the oldest version it holds: a
    /// page of `GET /actions` read from a journal or a shared log.
    ///
    /// The page and its earliest version are separate reads (separate statements of a shared
    /// log), and retention may remove the oldest records between them: a page could then start
    /// before the earliest version it names. Retention only ever raises the earliest version, so
    /// the earliest read before and after the page tells whether it ran in between; if so, both are
    /// read again (retention runs once per snapshot: one more round is plenty; after
    /// ``actionLogReads`` the last reads are answered).
    func actionLog(after version: UInt64, limit: Int) throws(JournalError) -> (records: [JournalRecord], earliest: UInt64?) {
        var earliest = try records(after: 0, limit: 1).first?.version
        var attempt = 1
        while true {
            let page = try records(after: version, limit: limit)
            let earliestAfterPage = try records(after: 0, limit: 1).first?.version
            if earliestAfterPage == earliest || attempt == actionLogReads {
                return (page, earliestAfterPage)
            }
            earliest = earliestAfterPage
            attempt += 1
        }
    }

    /// How many times ``actionLog(after:limit:)`` reads a page at most.
    var actionLogReads: Int { 4 }
}
