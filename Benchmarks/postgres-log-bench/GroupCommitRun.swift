import Journal
import ConcurrencyKit
import Foundation
import PostgresJournal

/// `submitters` threads each submit one-action groups to one ``PostgresGroupCommit`` and wait for
/// each outcome (as requests would): acknowledged actions/s and the average batch.
func runGroupCommit(conninfo: String, duration: Duration, submitters: Int) -> String {
    let commit = PostgresGroupCommit(conninfo: conninfo)
    guard commit.start() else { return "could not start the commit thread" }
    let acknowledged = Lock(0)
    let failures = Lock<[String]>([])
    let began = ContinuousClock.now
    let deadline = began + duration
    let group = LogGroup(actions: [LoggedAction(type: "increase", payload: Array(#"{"by":1}"#.utf8), time: 0)])
    let done = Lock(0)
    for _ in 0..<submitters {
        Thread {
            let answer = Lock<Bool?>(nil)
            while ContinuousClock.now < deadline {
                answer.withLock { $0 = nil }
                commit.submit(group) { outcome in
                    if case .failure(let error) = outcome { failures.withLock { $0.append(error.message) } }
                    answer.withLock { if case .success = outcome { $0 = true } else { $0 = false } }
                    answer.notifyAll()
                }
                _ = answer.wait(timeout: .seconds(30)) { $0 != nil }
                guard answer.withLock({ $0 }) == true else { break }
                acknowledged.withLock { $0 += 1 }
            }
            done.withLock { $0 += 1 }
            done.notifyAll()
        }.start()
    }
    _ = done.wait(timeout: duration + .seconds(60)) { $0 == submitters }
    let elapsed = ContinuousClock.now - began
    commit.stop()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let failed = failures.withLock { $0 }
    if !failed.isEmpty { return "errors: \(failed.prefix(3))" }
    let count = acknowledged.withLock { $0 }
    let statistics = commit.statistics
    return String(
        format: "group commit, submitters=%d (1 action each, waiting for its outcome): %.0f acknowledged actions/s, %.1f actions per transaction",
        submitters, Double(count) / seconds, Double(statistics.groups) / Double(max(1, statistics.commits))
    )
}
