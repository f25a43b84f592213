import ConcurrencyKit
import HTTPTestSupport
@testable import PostgresJournal
import Testing

/// Runs `statements` in a transaction on one connection, then `call` on a log of its own;
/// commits the transaction only once `call` is seen waiting for a lock (`pg_stat_activity`, a
/// query `LIKE` `waiter`) — or, with `mayFinishFirst`, once `call` returned without waiting —
/// and returns what `call` returned. For tests of what a statement sees when another
/// transaction commits while it waits: a condition, not a sleep.
func raceForLock<Result: Sendable>(
    _ conninfo: String, holding statements: [String], waiter: String, mayFinishFirst: Bool = false,
    _ call: @escaping @Sendable (PostgresLog) throws(PostgresLogError) -> Result
) throws -> Result {
    let callerReady = Mailbox<Bool>(), held = Mailbox<Bool>()
    let outcome = Lock<Swift.Result<Result, PostgresLogError>?>(nil)
    let errors = runOnThreads(2) { index in
        if index == 0 {
            let holder = try PostgresConnection(conninfo: conninfo)
            defer { holder.close() }
            let observer = try PostgresConnection(conninfo: conninfo)
            defer { observer.close() }
            _ = callerReady.next(timeout: .seconds(10))
            try holder.execute("BEGIN")
            for statement in statements { try holder.execute(statement) }
            held.post(true)
            let waiting = waitUntil(timeout: .seconds(10)) {
                if mayFinishFirst, outcome.withLock({ $0 != nil }) { return true }
                let rows = try? observer.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [waiter]
                )
                return rows?.rows.first?.first == "1"
            }
            try holder.execute("COMMIT")
            #expect(waiting, "the call \(mayFinishFirst ? "neither returned nor waited" : "never waited") for the lock")
        } else {
            let log = try PostgresLog(conninfo: conninfo)
            defer { log.close() }
            callerReady.post(true)
            guard held.next(timeout: .seconds(10)) == true else { return }
            do throws(PostgresLogError) {
                let result = try call(log)
                outcome.withLock { $0 = .success(result) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
    }
    #expect(errors.isEmpty, "\(errors)")
    return try #require(outcome.withLock { $0 }).get()
}
