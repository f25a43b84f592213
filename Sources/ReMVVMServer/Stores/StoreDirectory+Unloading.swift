import Journal

extension StoreDirectory {
    /// Records the loaded and existing stores in the metrics, before a scrape.
    public func recordMetrics() {
        metrics?.record(loaded: loadedCount, existing: (try? catalog.count()) ?? 0)
    }

    /// Unloads every store idle for ``StoreLimits/idleTime`` (no request, no open stream);
    /// returns how many. Run it periodically (``sweepInterval``). Does nothing when the loader
    /// does not unload (a server in memory) or the idle time is off.
    @discardableResult
    public func unloadIdleStores() -> Int {
        guard loader.unloads, let idle = limits.idleMilliseconds else { return 0 }
        let victims = state.withLock { state in
            let time = now()
            var victims: [(Entry, Store)] = []
            var candidate = state.loaded.oldest
            while let entry = candidate, entry.lastUsed + idle <= time {
                candidate = entry.newer
                guard entry.inUse == 0, let store = entry.store(as: Store.self) else { continue }
                if loader.hasOpenStreams(store) {
                    // Idle time counts from when its last stream ended (within one sweep).
                    entry.lastUsed = time
                    state.loaded.touch(entry)
                    continue
                }
                entry.phase = .unloading
                state.loaded.remove(entry)
                victims.append((entry, store))
            }
            return victims
        }
        unload(victims, reason: .idle)
        return victims.count
    }

    /// How often to call ``unloadIdleStores()``: a tenth of the idle time, from 1 s to 30 s
    /// (a store is then unloaded at most a tenth late); nil when nothing unloads when idle.
    public var sweepInterval: Duration? {
        guard loader.unloads, let idle = limits.idleTime else { return nil }
        return min(max(idle / 10, .seconds(1)), .seconds(30))
    }

    /// Unloads every loaded store but `default`, streams or not (the server stops: its streams
    /// end anyway); waits for requests holding a store to give it back, up to the wait limit.
    public func unloadAll() {
        let victims = state.withLock { state in
            var victims: [(Entry, Store)] = []
            while let entry = state.loaded.oldest, let store = entry.store(as: Store.self) {
                entry.phase = .unloading
                state.loaded.remove(entry)
                victims.append((entry, store))
            }
            return victims
        }
        for (entry, _) in victims {
            _ = state.wait(timeout: waitLimit) { _ in entry.inUse == 0 }
        }
        unload(victims, reason: .shutdown)
    }

    /// Under the lock: takes the least recently used stores that no request holds and that have
    /// no open streams out of the use list, as many as the loaded stores exceed `limit` by
    /// (fewer when too many are busy), marking them unloading.
    func leastRecentlyUsed(_ state: inout State, beyond limit: Int) -> [(Entry, Store)] {
        var excess = state.loaded.count + 1 - limit
        var victims: [(Entry, Store)] = []
        var candidate = state.loaded.oldest
        while excess > 0, let entry = candidate {
            candidate = entry.newer
            guard entry.inUse == 0, let store = entry.store(as: Store.self), !loader.hasOpenStreams(store) else { continue }
            entry.phase = .unloading
            state.loaded.remove(entry)
            victims.append((entry, store))
            excess -= 1
        }
        return victims
    }

    /// The most stores given to the loader's `StoreLoader.unload(_:)` with a list at once: a
    /// request for one of them waits for the whole batch.
    static var unloadBatch: Int { 500 }

    /// Unloads stores taken out of the use list (their snapshots are written), in batches of
    /// ``unloadBatch``, then takes each batch out of the directory, waking the requests that wait
    /// to load them again.
    func unload(_ victims: [(Entry, Store)], reason: StoreUnloadReason) {
        for start in stride(from: 0, to: victims.count, by: Self.unloadBatch) {
            let batch = victims[start..<min(start + Self.unloadBatch, victims.count)]
            loader.unload(batch.map(\.1))
            for (entry, _) in batch {
                remove(entry, phase: .gone(nil))
                metrics?.unloaded(reason: reason)
            }
        }
    }
}

/// Why a store was unloaded: the `reason` label of `remvvm_store_unloads_total`.
enum StoreUnloadReason: String, CaseIterable, Sendable {
    /// More than ``StoreLimits/maxLoaded`` stores were loaded; it was the least recently used.
    case overLimit = "over_limit"
    /// Nobody used it for ``StoreLimits/idleTime``.
    case idle
    /// The server stops.
    case shutdown
}
