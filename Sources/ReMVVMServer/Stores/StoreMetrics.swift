import ConcurrencyKit
import CoreMetrics

/// The store directory's figures for `GET /metrics`: loads, their latency and failures, unloads by
/// reason, and at scrape time the loaded and existing stores. No label names a store: a server of
/// a million stores keeps a handful of series.
public final class StoreMetrics: Sendable {
    private let loads: CoreMetrics.Counter
    private let loadFailures: CoreMetrics.Counter
    private let loadDuration: CoreMetrics.Timer
    private let unloads: [String: CoreMetrics.Counter]
    private let loadedStores: CoreMetrics.Gauge
    private let existingStores: CoreMetrics.Gauge

    /// Registers the families with `metrics`' registry.
    init(_ metrics: ServiceMetrics) {
        let factory = metrics.factory
        loads = CoreMetrics.Counter(label: "remvvm_store_loads_total", factory: factory)
        loadFailures = CoreMetrics.Counter(label: "remvvm_store_load_failures_total", factory: factory)
        loadDuration = CoreMetrics.Timer(label: "remvvm_store_load_duration_seconds", factory: factory)
        var unloads: [String: CoreMetrics.Counter] = [:]
        for reason in StoreUnloadReason.allCases {
            unloads[reason.rawValue] = CoreMetrics.Counter(
                label: "remvvm_store_unloads_total", dimensions: [("reason", reason.rawValue)], factory: factory
            )
        }
        self.unloads = unloads
        loadedStores = CoreMetrics.Gauge(label: "remvvm_stores_loaded", factory: factory)
        existingStores = CoreMetrics.Gauge(label: "remvvm_stores", factory: factory)
    }

    /// A store was loaded in `duration`.
    func loaded(duration: Duration) {
        loads.increment()
        loadDuration.recordNanoseconds(duration.wholeNanoseconds)
    }

    /// A store's load failed.
    func loadFailed() {
        loadFailures.increment()
    }

    /// A store was unloaded for `reason`.
    func unloaded(reason: StoreUnloadReason) {
        unloads[reason.rawValue]?.increment()
    }

    /// Records the figures read at scrape time.
    func record(loaded: Int, existing: Int) {
        loadedStores.record(Double(loaded))
        existingStores.record(Double(existing))
    }
}
