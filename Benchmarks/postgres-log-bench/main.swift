// Appends to the shared PostgreSQL log as fast as it goes: actions/s committed by actions per
// transaction and client count. scripts/postgres-bench.sh starts a throwaway PostgreSQL on a unix
// socket (fsync on, the defaults) and runs this against it.
//
//   postgres-log-bench <conninfo> <seconds> <actions-per-transaction> <clients>
//   postgres-log-bench <conninfo> <seconds> group-commit <submitters>
//   postgres-log-bench <conninfo> <seconds> stores <stores> <replicas> <submitters-per-replica>
import ConcurrencyKit
import Foundation
import Journal
import PostgresJournal

let arguments = CommandLine.arguments
if arguments.count == 5, arguments[3] == "group-commit", let seconds = Double(arguments[2]), let submitters = Int(arguments[4]) {
    print(runGroupCommit(conninfo: arguments[1], duration: .milliseconds(Int(seconds * 1_000)), submitters: max(1, submitters)))
    exit(0)
}
if arguments.count == 7, arguments[3] == "stores", let seconds = Double(arguments[2]), let stores = Int(arguments[4]),
    let replicas = Int(arguments[5]), let submitters = Int(arguments[6]) {
    print(runStores(
        conninfo: arguments[1], duration: .milliseconds(Int(seconds * 1_000)), stores: max(1, stores),
        replicas: max(1, replicas), submitters: max(1, submitters)
    ))
    exit(0)
}
guard arguments.count == 5, let seconds = Double(arguments[2]), let perTransaction = Int(arguments[3]),
    let clients = Int(arguments[4]), perTransaction > 0, clients > 0
else {
    print("usage: postgres-log-bench <conninfo> <seconds> <actions-per-transaction> <clients>")
    exit(2)
}
let conninfo = arguments[1]
let duration = Duration.milliseconds(Int(seconds * 1_000))

struct Totals {
    var actions = 0
    var transactions = 0
    var errors: [String] = []
    var finished = 0
}
let totals = Lock(Totals())
let start = Lock(false)
let payload = Array(#"{"by":1}"#.utf8)

for _ in 0..<clients {
    let thread = Thread {
        do {
            let log = try PostgresLog(conninfo: conninfo)
            defer { log.close() }
            _ = start.wait(timeout: .seconds(30)) { $0 }
            let deadline = ContinuousClock.now + duration
            var actions = 0
            var transactions = 0
            // One group per action, as the server's group commit would gather them.
            let groups = (0..<perTransaction).map { _ in
                LogGroup(actions: [LoggedAction(type: "increase", payload: payload, time: 0)])
            }
            while ContinuousClock.now < deadline {
                _ = try log.append(groups)
                actions += perTransaction
                transactions += 1
            }
            totals.withLock {
                $0.actions += actions
                $0.transactions += transactions
                $0.finished += 1
            }
        } catch {
            totals.withLock {
                $0.errors.append("\(error)")
                $0.finished += 1
            }
        }
        totals.notifyAll()
    }
    thread.start()
}
let began = ContinuousClock.now
start.withLock { $0 = true }
start.notifyAll()
_ = totals.wait(timeout: duration + .seconds(60)) { $0.finished == clients }
let elapsed = ContinuousClock.now - began
let seconds_ = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let result = totals.withLock { $0 }
if !result.errors.isEmpty {
    print("errors: \(result.errors)")
    exit(1)
}
print(String(
    format: "actions/transaction=%d clients=%d: %.0f actions/s, %.0f transactions/s (%d actions in %.1f s)",
    perTransaction, clients, Double(result.actions) / seconds_, Double(result.transactions) / seconds_, result.actions, seconds_
))
