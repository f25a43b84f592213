import Journal

/// How the loaded stores are doing together, for `GET /healthz`, `GET /stats` and `GET /metrics`
/// (`docs/http-api.md`, "Operations"): how many are loaded, how many are not ok (a replica's store
/// that stopped following the log, or cannot reach it; a journal whose commits fail) with the
/// first of them by id, the worst replica lag, and the open streams. Figures over every store,
/// never one series or field per store: a server of a million stores keeps a handful.
struct StoresHealth: Sendable, Equatable {
    /// The most stores not ok that ``unhealthyStores`` names.
    static var listLimit: Int { 10 }

    /// Stores loaded now, `default` included.
    var loaded: Int
    /// Loaded stores whose health is not ``StoreHealth/Status/ok``, `default` included, and
    /// stores that cannot be loaded here (``StoreHealth/Status/unloadable``).
    var unhealthy: Int
    /// The first ``listLimit`` of them by id, with their health.
    var unhealthyStores: [Unhealthy]
    /// The most versions a loaded store's replica knows of in the shared log and has not applied
    /// yet (0 off a replica).
    var maxLagVersions: UInt64
    /// Open `GET /events` streams (both formats) over the loaded stores.
    var eventStreams: Int
    /// Open view-model streams over the loaded stores.
    var viewModelStreams: Int

    /// One store that is not ok.
    struct Unhealthy: Sendable, Equatable {
        let id: StoreID
        let health: StoreHealth
    }

    /// The health of `stores` (`default` among them): each backend is asked once; the stores of
    /// `unloadable` (not loaded: their last load failed for good) count as not ok, with why.
    init<State>(of stores: [ServedStore<State>], unloadable: [StoreID: String] = [:]) {
        loaded = stores.count
        var unhealthy = unloadable.map { Unhealthy(id: $0.key, health: StoreHealth(status: .unloadable, reason: $0.value)) }
        var maxLag: UInt64 = 0
        var (events, viewModels) = (0, 0)
        for served in stores {
            events += served.hub.subscriberCount
            viewModels += served.viewModelHub.subscriberCount
            let health = served.backend.health
            if health.status != .ok { unhealthy.append(Unhealthy(id: served.id, health: health)) }
            maxLag = max(maxLag, served.backend.lagVersions)
        }
        self.unhealthy = unhealthy.count
        unhealthyStores = Array(unhealthy.sorted { $0.id < $1.id }.prefix(Self.listLimit))
        maxLagVersions = maxLag
        eventStreams = events
        viewModelStreams = viewModels
    }

    /// The `stores` object of `GET /healthz`: `{"loaded":N,"unhealthy":K}`, and while K > 0 and
    /// `namingStores`, `"failing":[{"id","status","reason"}…]` (the first ``listLimit`` by id).
    /// `/healthz` takes no token: with access control on, it names no store (the counts stay).
    func healthJSON(namingStores: Bool) -> [UInt8] {
        var body = Array("{\"loaded\":\(loaded),\"unhealthy\":\(unhealthy)".utf8)
        if namingStores, !unhealthyStores.isEmpty {
            body += Array(",\"failing\":[".utf8)
            for (index, store) in unhealthyStores.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += Array("{\"id\":".utf8) + JSONCoding.string(store.id.rawValue)
                body += Array(",\"status\":\"\(store.health.status.rawValue)\"".utf8)
                if let reason = store.health.reason {
                    body += Array(",\"reason\":".utf8) + JSONCoding.string(reason)
                }
                body.append(UInt8(ascii: "}"))
            }
            body.append(UInt8(ascii: "]"))
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// The aggregate gauges of `GET /metrics` (no label names a store).
    var gauges: [BackendGauge] {
        [
            BackendGauge(label: "remvvm_stores_unhealthy", value: Double(unhealthy)),
            BackendGauge(label: "remvvm_stores_lag_versions_max", value: Double(maxLagVersions)),
        ]
    }
}
