/// What each metric family of `GET /metrics` measures, and the text that says so.
///
/// swift-prometheus writes no `# HELP` line for a metric made through the swift-metrics API (its
/// factory registers every family with an empty help text, and a family's help text cannot change
/// afterwards), so ``annotated(_:)`` adds them to the registry's output, and orders the families by
/// name, so that two scrapes list them alike (the registry keeps them in a dictionary).
enum MetricFamilies {
    /// The help text of every family the service registers, by name.
    static let help: [String: String] = [
        "http_requests_total": "HTTP requests answered, by method, route pattern and status code.",
        "http_request_duration_seconds": "Time from a request's head to its answer, by method and route pattern; event streams are counted, not timed.",
        "remvvm_actions_total": "Actions dispatched through POST /actions and commands, by type and outcome.",
        "remvvm_journal_commit_duration_seconds": "Time one journal commit took: one transaction and its sync, whatever stores it carried (on a replica: one append transaction to the shared log).",
        "remvvm_journal_batch_actions": "Actions made durable by one journal commit, of every store in it.",
        "remvvm_store_version": "The store's newest version that readers can see.",
        "remvvm_sse_subscribers": "Open event streams, by stream kind (events or viewmodels).",
        "remvvm_sse_disconnects_total": "Event streams that ended, by reason.",
        "remvvm_viewmodels_made_total": "View models made for view-model streams.",
        "remvvm_viewmodels_encoded_total": "View models encoded for view-model streams (made ones whose JSON changed).",
        "remvvm_replica_lag_versions": "Versions of the shared log this replica knows of and has not applied yet.",
        "remvvm_replica_following": "1 while this replica follows the shared log, 0 while it catches up, cannot reach it or has stopped.",
        "remvvm_replica_registration_renewed_timestamp_seconds": "When the shared log last accepted this replica's registration, in seconds since 1970; 0: never.",
        "remvvm_stores": "Stores that exist (the default store included).",
        "remvvm_stores_loaded": "Stores loaded in memory now (the default store included).",
        "remvvm_stores_unhealthy": "Loaded stores whose /healthz status is not ok (the default store included): a replica's store that stopped following the shared log or cannot reach it, a journal whose commits fail.",
        "remvvm_stores_lag_versions_max": "The most versions of the shared log a loaded store's replica knows of and has not applied yet (0 off a replica).",
        "remvvm_store_loads_total": "Stores loaded (a snapshot and the journal after it replayed) on a first request.",
        "remvvm_store_load_failures_total": "Store loads that failed (answered 503; the next request tries again).",
        "remvvm_store_load_duration_seconds": "Time one store's load took, from the first request to ready.",
        "remvvm_store_unloads_total": "Stores unloaded, by reason (over_limit, idle, shutdown).",
        "process_resident_memory_bytes": "Resident memory size in bytes.",
        "process_virtual_memory_bytes": "Virtual memory size in bytes.",
        "process_open_fds": "Open file descriptors.",
        "process_cpu_seconds_total": "User and system CPU time spent, in seconds.",
        "process_start_time_seconds": "When the process started, in seconds since 1970.",
    ]

    /// `exposition` (the registry's Prometheus text) with its families ordered by name, each
    /// with its `# HELP` line before its `# TYPE` line.
    static func annotated(_ exposition: [UInt8]) -> [UInt8] {
        // A family is its `# TYPE` line and the samples up to the next `# TYPE` line.
        var families: [(name: Substring, lines: [Substring])] = []
        let text = String(decoding: exposition, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst("# TYPE ".count).prefix { $0 != " " }
                families.append((name, [line]))
            } else if line.hasPrefix("# HELP ") {
                continue  // none today; the one below replaces it
            } else if !families.isEmpty {
                families[families.count - 1].lines.append(line)
            }
        }
        var output = ""
        output.reserveCapacity(text.utf8.count + families.count * 96)
        for family in families.sorted(by: { $0.name < $1.name }) {
            if let help = help[String(family.name)] {
                output += "# HELP \(family.name) \(help)\n"
            }
            for line in family.lines {
                output += line
                output += "\n"
            }
        }
        return Array(output.utf8)
    }
}
