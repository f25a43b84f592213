import ConcurrencyKit
import CoreMetrics
import Journal
import MicroHTTP
import Prometheus
import ReMVVM

/// The service's metrics, through the swift-metrics API into a swift-prometheus registry of its
/// own (not the process-wide `MetricsSystem`, so that several services — tests — do not mix),
/// rendered by `GET /metrics` in the Prometheus text format.
///
/// Hot-path handles (per route, per action type) are made up front and found without a lock;
/// figures that are cheap to read when scraped (store version, subscribers, process memory) are
/// read then instead of being kept up to date.
final class ServiceMetrics: Sendable {
    /// How an action ended, the `outcome` label of `remvvm_actions_total`.
    enum ActionOutcome: String, CaseIterable, Sendable {
        case applied, accepted, rejected, refused
        case preconditionFailed = "precondition_failed"
        case unchanged

        /// Its position in `allCases` (without building that array on the dispatch path).
        var column: Int {
            switch self {
            case .applied: 0
            case .accepted: 1
            case .rejected: 2
            case .refused: 3
            case .preconditionFailed: 4
            case .unchanged: 5
            }
        }
    }

    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    /// `http_request_duration_seconds`, one histogram per (method, route): recorded on every
    /// answer, so not through the registry (``DurationHistogram``).
    let requestDurations = DurationHistogramFamily(name: "http_request_duration_seconds", bounds: durationBuckets)
    /// `remvvm_actions_total` by action type, then by ``ActionOutcome`` (in `allCases` order):
    /// found by the action's type without building its name on the dispatch path.
    private let actionCounters: [ObjectIdentifier: [CoreMetrics.Counter]]
    /// The same as a list, searched instead of the dictionary when an app has a few action
    /// types: comparing a handful of identifiers costs less than hashing one.
    private let fewActionCounters: [ActionCounters]?

    /// One action type's counters by outcome.
    private struct ActionCounters {
        let type: ObjectIdentifier
        let byOutcome: [CoreMetrics.Counter]
    }

    /// Up to how many action types the list is searched.
    private static let listedActionTypes = 16
    private let journalCommitDuration: CoreMetrics.Timer
    private let journalBatchActions: CoreMetrics.Recorder
    private let storeVersion: CoreMetrics.Gauge
    private let subscribers: CoreMetrics.Gauge
    private let viewModelSubscribers: CoreMetrics.Gauge
    private let viewModelsMade: CoreMetrics.Counter
    private let viewModelsEncoded: CoreMetrics.Counter
    /// The view-model hub's totals at the last scrape: each scrape adds what grew since.
    private let viewModelTotalsSeen = Lock((made: 0, encoded: 0))
    private let disconnects: [String: CoreMetrics.Counter]
    private let residentMemory: CoreMetrics.Gauge
    private let virtualMemory: CoreMetrics.Gauge
    private let openDescriptors: CoreMetrics.Gauge
    /// A counter (Prometheus' `_total` convention), raised by what the kernel added since the
    /// last scrape.
    private let cpuSeconds: CoreMetrics.FloatingPointCounter
    private let cpuSecondsSeen = Lock<Double>(0)
    private let startTime: CoreMetrics.Gauge
    /// The gauges of the store backend's own figures (a replica's lag), by family name: made at
    /// the first scrape that reports them.
    private let backendGaugesByLabel = Lock<[String: CoreMetrics.Gauge]>([:])

    /// Reasons an event subscriber ends, the `reason` label of `remvvm_sse_disconnects_total`.
    static let disconnectReasons = ["client_gone", "overflow", "stalled", "closed", "shutdown"]

    /// The `reason` label of a stream's end.
    static func disconnectReason(_ termination: EventStream.Termination) -> String {
        switch termination {
        case .clientGone: "client_gone"
        case .overflow: "overflow"
        case .stalled: "stalled"
        case .closed: "closed"
        case .serverShutdown: "shutdown"
        }
    }

    /// Buckets of `http_request_duration_seconds` and `remvvm_journal_commit_duration_seconds`.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
    ]
    /// Buckets of `remvvm_journal_batch_actions`.
    static let batchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_024, 2_048, 4_096, 8_192]

    /// - Parameter actionTypes: the wire name of each action type, for `remvvm_actions_total`.
    init(actionTypes: [ObjectIdentifier: String]) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        factory.valueHistogramBuckets["remvvm_journal_batch_actions"] = Self.batchBuckets
        self.factory = factory
        var actionCounters: [ObjectIdentifier: [CoreMetrics.Counter]] = [:]
        for (type, name) in actionTypes {
            actionCounters[type] = ActionOutcome.allCases.map { outcome in
                CoreMetrics.Counter(
                    label: "remvvm_actions_total", dimensions: [("type", name), ("outcome", outcome.rawValue)], factory: factory
                )
            }
        }
        self.actionCounters = actionCounters
        fewActionCounters = actionCounters.count <= Self.listedActionTypes
            ? actionCounters.map { ActionCounters(type: $0.key, byOutcome: $0.value) }
            : nil
        journalCommitDuration = CoreMetrics.Timer(label: "remvvm_journal_commit_duration_seconds", factory: factory)
        journalBatchActions = CoreMetrics.Recorder(label: "remvvm_journal_batch_actions", aggregate: true, factory: factory)
        storeVersion = CoreMetrics.Gauge(label: "remvvm_store_version", factory: factory)
        subscribers = CoreMetrics.Gauge(label: "remvvm_sse_subscribers", dimensions: [("stream", "events")], factory: factory)
        viewModelSubscribers = CoreMetrics.Gauge(
            label: "remvvm_sse_subscribers", dimensions: [("stream", "viewmodels")], factory: factory
        )
        // Kept by the view-model hub (off the request path), added here at scrape time.
        viewModelsMade = CoreMetrics.Counter(label: "remvvm_viewmodels_made_total", factory: factory)
        viewModelsEncoded = CoreMetrics.Counter(label: "remvvm_viewmodels_encoded_total", factory: factory)
        var disconnects: [String: CoreMetrics.Counter] = [:]
        for reason in Self.disconnectReasons {
            disconnects[reason] = CoreMetrics.Counter(
                label: "remvvm_sse_disconnects_total", dimensions: [("reason", reason)], factory: factory
            )
        }
        self.disconnects = disconnects
        residentMemory = CoreMetrics.Gauge(label: "process_resident_memory_bytes", factory: factory)
        virtualMemory = CoreMetrics.Gauge(label: "process_virtual_memory_bytes", factory: factory)
        openDescriptors = CoreMetrics.Gauge(label: "process_open_fds", factory: factory)
        cpuSeconds = CoreMetrics.FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
        startTime = CoreMetrics.Gauge(label: "process_start_time_seconds", factory: factory)
    }

    /// Handles for the routes of `router`.
    func httpMetrics(for router: Router) -> HTTPMetrics {
        HTTPMetrics(routes: router.numberedRoutes, factory: factory, durations: requestDurations)
    }

    /// Counts the actions of one request by outcome (no allocation: this runs for every `POST`).
    func countActions(_ actions: [any StoreAction], outcome: DispatchOutcome) {
        func count(_ range: Range<Int>, _ outcome: ActionOutcome) {
            let column = outcome.column
            for index in range where index < actions.count {
                counters(of: actionTypeIdentifier(of: actions[index]))?[column].increment()
            }
        }
        switch outcome {
        case .reduced:
            count(0..<actions.count, .applied)
        case .accepted:
            count(0..<actions.count, .accepted)
        case .unchanged:
            count(0..<actions.count, .unchanged)
        case .preconditionFailed:
            count(0..<actions.count, .preconditionFailed)
        case .rejected(_, let index):
            count(0..<index, .applied)
            count(index..<index + 1, .rejected)
        case .refused(_, let index):
            count(0..<index, .applied)
            count(index..<index + 1, .refused)
        }
    }

    /// The counters of the action type `type`, by outcome; nil for a type not registered.
    private func counters(of type: ObjectIdentifier) -> [CoreMetrics.Counter]? {
        guard let list = fewActionCounters else { return actionCounters[type] }
        for entry in list where entry.type == type {
            return entry.byOutcome
        }
        return nil
    }

    /// Records one journal commit.
    func journalCommitted(actions: Int, duration: Duration) {
        journalCommitDuration.recordNanoseconds(duration.wholeNanoseconds)
        journalBatchActions.record(actions)
    }

    /// Counts an event subscriber that ended for `reason`.
    func subscriberDisconnected(reason: String) {
        disconnects[reason]?.increment()
    }

    /// The Prometheus text of every metric, with the figures read at scrape time updated first.
    ///
    /// - Parameter count: open event streams (of every loaded store).
    /// - Parameter viewModelStreams: open view-model streams (of every loaded store), and the view
    ///   models the store `default`'s made and encoded since start.
    /// - Parameter backendGauges: the store backend's own figures (``StoreBackend/gauges``): a
    ///   replica's lag behind the log head it knows of (versions), whether it follows the log (1)
    ///   or not (0: catching up, log unreachable, stopped), and when the log last accepted its
    ///   registration (seconds since 1970, 0: never).
    func render(
        storeVersion version: UInt64,
        subscribers count: Int,
        viewModelStreams: (subscribers: Int, made: Int, encoded: Int) = (0, 0, 0),
        backendGauges: [BackendGauge] = []
    ) -> [UInt8] {
        if !backendGauges.isEmpty {
            backendGaugesByLabel.withLock { gauges in
                for figure in backendGauges {
                    let gauge = gauges[figure.label] ?? CoreMetrics.Gauge(label: figure.label, factory: factory)
                    gauges[figure.label] = gauge
                    gauge.record(figure.value)
                }
            }
        }
        storeVersion.record(Double(version))
        subscribers.record(Double(count))
        viewModelSubscribers.record(Double(viewModelStreams.subscribers))
        let (made, encoded) = viewModelTotalsSeen.withLock { seen in
            defer { seen = (viewModelStreams.made, viewModelStreams.encoded) }
            return (max(0, viewModelStreams.made - seen.made), max(0, viewModelStreams.encoded - seen.encoded))
        }
        viewModelsMade.increment(by: made)
        viewModelsEncoded.increment(by: encoded)
        if let process = ProcessStatistics.current() {
            residentMemory.record(process.residentMemoryBytes)
            virtualMemory.record(process.virtualMemoryBytes)
            openDescriptors.record(process.openDescriptors)
            let added = cpuSecondsSeen.withLock { seen in
                defer { seen = max(seen, process.cpuSeconds) }
                return max(0, process.cpuSeconds - seen)
            }
            cpuSeconds.increment(by: added)
            startTime.record(process.startTimeSeconds)
        }
        return MetricFamilies.annotated(registry.emitToBuffer() + Array(requestDurations.render().utf8))
    }
}
