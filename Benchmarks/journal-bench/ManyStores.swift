// Many stores in one journal file (issue 35): group commit across stores, and the cost of loading
// one store from a file of many.
//
//   journal-bench stores <directory> <sync> <stores> <clients> <seconds>
//       N stores share the file's committer; each client appends to the stores in turn (client c's
//       k-th record goes to store (c + k * clients) mod N) and waits until it is durable. Prints
//       acknowledged records/s, transactions/s, records per transaction (per sync), the share of
//       transactions that held several stores, and the append-to-durable latency (p50, p99).
//   journal-bench load <directory> <stores> <loaded> <records>
//       A file of `stores` stores (each a snapshot and 5 records), `loaded` of them with a snapshot
//       and `records` records after it; then times, for each of those, what loading it reads from
//       the journal (its view, recover(), and the records after its snapshot). Prints p50 and p99.
import ConcurrencyKit
#if canImport(Glibc)
import Glibc
#endif
import Journal
import SQLiteJournal

/// The `index`-th store of a benchmark: `default` first.
func benchStore(_ index: Int) -> StoreID {
    guard index > 0 else { return .default }
    return try! StoreID("store-\(index)")  // cannot fail: "store-" and digits follow the id rules
}

/// The `fraction` quantile of sorted `values` (nearest rank).
func quantile(_ values: [Duration], _ fraction: Double) -> Duration {
    guard !values.isEmpty else { return .zero }
    let rank = min(values.count - 1, Int((Double(values.count) * fraction).rounded(.up)) - 1)
    return values[max(0, rank)]
}

/// Microseconds, for printing.
func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

func runManyStores(directory: String, sync: JournalSync, stores: Int, clients: Int, seconds: Double) throws {
    let database = try emptyJournal(in: directory, sync: sync)
    var journals: [(journal: GroupCommitJournal, version: Lock<UInt64>)] = []
    for index in 0..<max(1, stores) {
        let id = benchStore(index)
        if index > 0 { _ = try database.create(id, limit: .max, at: 1_700_000_000_000) }
        guard let view = try database.storage(for: id) else { fatalError("store \(id) was just created") }
        let journal = GroupCommitJournal(storage: view, lastVersion: 0, committer: database.commits)
        precondition(journal.start())
        journals.append((journal, Lock(0)))
    }
    let payload = Array(#"{"amount":1}"#.utf8)
    let started = ContinuousClock.now
    let deadline = started + .milliseconds(Int(seconds * 1000))
    let latencies = Lock<[Duration]>([])
    let acknowledged = Lock(0)
    let done = Lock(0)
    let storeCount = journals.count
    for client in 0..<clients {
        let sendableJournals = journals
        let thread = startThread(named: "bench-client") {
            var mine: [Duration] = []
            var round = 0
            while ContinuousClock.now < deadline {
                let target = sendableJournals[(client + round * clients) % storeCount]
                round += 1
                let sent = ContinuousClock.now
                // Versions are handed out in order per store, as a store's exclusive step does.
                let version = target.version.withLock { version -> UInt64 in
                    version += 1
                    target.journal.append(JournalRecord(version: version, type: "increase", payload: payload, time: 1_700_000_000_000))
                    return version
                }
                guard case .success = target.journal.waitUntilDurable(version, timeout: .seconds(10)) else {
                    print("journal-bench: a version did not become durable within 10 s")
                    exit(1)
                }
                mine.append(ContinuousClock.now - sent)
            }
            latencies.withLock { $0 += mine }
            acknowledged.withLock { $0 += mine.count }
            done.withLock { $0 += 1 }
            done.notifyAll()
        }
        guard let thread else { fatalError("could not start a client thread") }
        pthread_detach(thread)
    }
    _ = done.wait(timeout: .seconds(seconds + 30)) { $0 == clients }
    let elapsed = ContinuousClock.now - started
    let statistics = database.commits.statistics
    for entry in journals { entry.journal.stop() }
    database.close()
    let sorted = latencies.withLock { $0 }.sorted()
    let wall = microseconds(elapsed) / 1e6
    print(String(
        format: "sync=%@ stores=%d clients=%d: %.0f acknowledged records/s, %.0f transactions/s, %.1f records/transaction, %.0f%% of transactions held several stores, latency p50 %.0f us p99 %.0f us",
        sync.rawValue, storeCount, clients, Double(acknowledged.withLock { $0 }) / wall, Double(statistics.transactions) / wall,
        Double(statistics.records) / Double(max(1, statistics.transactions)),
        100 * Double(statistics.sharedTransactions) / Double(max(1, statistics.transactions)),
        microseconds(quantile(sorted, 0.5)), microseconds(quantile(sorted, 0.99))
    ))
}

func runStoreLoad(directory: String, stores: Int, loaded: Int, records: Int) throws {
    let database = try emptyJournal(in: directory, sync: .off)
    let state = Array(repeating: UInt8(ascii: "x"), count: 512)
    let payload = Array(#"{"amount":1}"#.utf8)
    let filling = ContinuousClock.now
    for index in 0..<max(1, stores) {
        let id = benchStore(index)
        if index > 0 { _ = try database.create(id, limit: .max, at: 1_700_000_000_000) }
        guard let view = try database.storage(for: id) else { fatalError("store \(id) was just created") }
        let count = index < loaded ? records : 5
        let batch = (1...(count + 1)).map { version in
            JournalRecord(version: UInt64(version), type: "increase", payload: payload, time: 1_700_000_000_000)
        }
        try view.append(batch)
        try view.saveSnapshot(JournalSnapshot(version: 1, state: state, time: 1_700_000_000_000))
    }
    print("filled \(stores) stores in \(ContinuousClock.now - filling)")
    var durations: [Duration] = []
    var read = 0
    for index in 0..<min(loaded, stores) {
        let started = ContinuousClock.now
        guard let view = try database.storage(for: benchStore(index)) else { fatalError("store \(index) is missing") }
        let recovery = try view.recover()
        let after = try view.records(after: recovery.snapshot?.version ?? 0, limit: 10_000)
        durations.append(ContinuousClock.now - started)
        read += after.count
    }
    database.close()
    let sorted = durations.sorted()
    print(String(
        format: "stores=%d: loading one of %d (a snapshot and %d records after it, %d read in all): p50 %.2f ms, p99 %.2f ms, max %.2f ms",
        stores, sorted.count, records, read, microseconds(quantile(sorted, 0.5)) / 1e3, microseconds(quantile(sorted, 0.99)) / 1e3,
        microseconds(sorted.last ?? .zero) / 1e3
    ))
}
