import Journal
import ConcurrencyKit
import Foundation
import PostgresJournal

/// Many stores over several replicas in one process: `replicas` ``PostgresSharedLog``s (each its
/// own appender, follower and connections, as replica processes would have), every one following
/// every store (a view per store, started); `submitters` threads per replica each submit one-action
/// groups to a random store through that replica's view and wait until the replica applied it,
/// as a `POST` does. Reports acknowledged actions/s in total, actions per transaction, and the lag
/// of the replicas that did not append a record (from its append to its apply there: p50, p99).
/// Actions carry the time they were submitted, in microseconds, in their `time`.
func runStores(conninfo: String, duration: Duration, stores storeCount: Int, replicas replicaCount: Int, submitters: Int) -> String {
    let stores: [StoreID]
    let logs: [PostgresSharedLog]
    do {
        logs = try (0..<replicaCount).map { _ in try PostgresSharedLog(conninfo: conninfo, patience: .seconds(10)) }
        stores = try (0..<storeCount).map { index in try StoreID("bench-\(storeCount)-\(index)") }
        for store in stores { _ = try logs[0].create(store, limit: Int.max, at: 0) }
    } catch {
        return "could not prepare: \(error)"
    }
    defer { for log in logs { log.stop() } }
    let lags = Lock<[Int64]>([])
    let views: [[PostgresStoreLog]] = logs.enumerated().map { replica, log in
        stores.map { store in
            let view = log.view(of: store)
            let type = "r\(replica)"
            do {
                // Stores of this run are new (their names carry the run's store count): version 0.
                try view.start(applied: 0) { page in
                    let now = microsecondsNow()
                    let measured = page.lazy.filter { $0.record.type != type }.map { now - $0.record.time }
                    if !measured.isEmpty { lags.withLock { $0.append(contentsOf: measured) } }
                }
            } catch {
                print("could not start \(store) on replica \(replica): \(error)")
            }
            return view
        }
    }
    let acknowledged = Lock(0)
    let failures = Lock<[String]>([])
    let done = Lock(0)
    let began = ContinuousClock.now
    let deadline = began + duration
    for replica in 0..<replicaCount {
        for _ in 0..<submitters {
            Thread {
                var random = SystemRandomNumberGenerator()
                let answer = Lock<Bool?>(nil)
                while ContinuousClock.now < deadline {
                    let view = views[replica][Int.random(in: 0..<storeCount, using: &random)]
                    answer.withLock { $0 = nil }
                    let group = LogGroup(actions: [LoggedAction(type: "r\(replica)", payload: Array(#"{"by":1}"#.utf8), time: microsecondsNow())])
                    view.submit(group) { outcome in
                        guard case .success(.appended(let versions)) = outcome else {
                            failures.withLock { $0.append("\(outcome)") }
                            answer.withLock { $0 = false }
                            answer.notifyAll()
                            return
                        }
                        view.whenApplied(versions.upperBound, timeout: .seconds(30)) { applied in
                            answer.withLock { $0 = applied }
                            answer.notifyAll()
                        }
                    }
                    _ = answer.wait(timeout: .seconds(60)) { $0 != nil }
                    guard answer.withLock({ $0 }) == true else {
                        failures.withLock { $0.append("version of \(view.store) not applied on replica \(replica) (status \(view.status))") }
                        break
                    }
                    acknowledged.withLock { $0 += 1 }
                }
                done.withLock { $0 += 1 }
                done.notifyAll()
            }.start()
        }
    }
    _ = done.wait(timeout: duration + .seconds(90)) { $0 == replicaCount * submitters }
    let elapsed = ContinuousClock.now - began
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let failed = failures.withLock { $0 }
    if !failed.isEmpty { return "errors: \(failed.prefix(3))" }
    let count = acknowledged.withLock { $0 }
    let commits = logs.reduce(UInt64(0)) { $0 + $1.appendStatistics.commits }
    let groups = logs.reduce(UInt64(0)) { $0 + $1.appendStatistics.groups }
    let sorted = lags.withLock { $0 }.sorted()
    func percentile(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1_000
    }
    return String(
        format: "stores=%d replicas=%d submitters=%d per replica: %.0f acknowledged actions/s, %.1f actions per transaction, lag on the other replicas p50 %.1f ms p99 %.1f ms (%d applies)",
        storeCount, replicaCount, submitters, Double(count) / seconds, Double(groups) / Double(max(1, commits)),
        percentile(0.5), percentile(0.99), sorted.count
    )
}

/// The wall clock in microseconds since 1970 (the replicas of a run share it).
func microsecondsNow() -> Int64 {
    Int64(Date().timeIntervalSince1970 * 1_000_000)
}
