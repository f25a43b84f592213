import ConcurrencyKit
import Foundation
import HTTPTestSupport
import Journal
import PostgresJournal
import PostgresTestSupport
import Testing

/// Three replicas at the log level: each has its own group commit and its own follower; writers on
/// all three. Every follower applies the same versions with the same actions, in order, and a
/// writer's version is applied on its own replica once it waits for it (read your own writes).
@Suite struct PostgresReplicaLogTests {
    private struct Replica {
        let commit: PostgresGroupCommit
        let follower: PostgresLogFollower
        let applied: Lock<[LogEntry]>
    }

    @Test func threeReplicasApplyTheSameLogInTheSameOrder() throws {
        let server = try PostgresServer()
        let conninfo = server.conninfo
        let replicas = (0..<3).map { _ in
            let applied = Lock<[LogEntry]>([])
            return Replica(
                commit: PostgresGroupCommit(conninfo: conninfo),
                follower: PostgresLogFollower(conninfo: conninfo, applied: 0) { page in applied.withLock { $0 += page } },
                applied: applied
            )
        }
        for replica in replicas {
            #expect(replica.commit.start() && replica.follower.start())
        }
        defer {
            for replica in replicas {
                replica.commit.stop()
                replica.follower.stop()
            }
        }
        let perWriter = 30
        let errors = runOnThreads(6) { writer in
            let replica = replicas[writer % 3]
            for index in 0..<perWriter {
                let outcome = Lock<Result<LogGroupOutcome, PostgresLogError>?>(nil)
                let action = LoggedAction(type: "add", payload: Array(#"{"writer":\#(writer),"index":\#(index)}"#.utf8), time: 0)
                replica.commit.submit(LogGroup(actions: [action])) { result in
                    outcome.withLock { $0 = result }
                    outcome.notifyAll()
                }
                _ = outcome.wait(timeout: .seconds(30)) { $0 != nil }
                guard case .success(.appended(let range)) = outcome.withLock({ $0 }) else {
                    throw PostgresLogError(code: .queryFailed, message: "writer \(writer) action \(index) not appended")
                }
                // The answer is given once the version is applied on the replica written to.
                guard replica.follower.waitUntilApplied(range.upperBound, timeout: .seconds(30)) else {
                    throw PostgresLogError(code: .queryFailed, message: "version \(range.upperBound) not applied on its replica")
                }
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        let total = UInt64(6 * perWriter)
        for replica in replicas {
            #expect(replica.follower.waitUntilApplied(total, timeout: .seconds(30)))
        }
        let logs = replicas.map { $0.applied.withLock { $0 } }
        #expect(logs[0].map(\.record.version) == Array(1...total))
        #expect(comparable(logs[1]) == comparable(logs[0]))
        #expect(comparable(logs[2]) == comparable(logs[0]))
    }

    /// Each entry with its payload as a JSON value: the rows a doorbell carries hold a payload as
    /// it was written (`{"writer":1,"index":0}`), the rows read back as PostgreSQL's `jsonb`
    /// writes it (`{"index": 0, "writer": 1}`).
    private func comparable(_ entries: [LogEntry]) -> [String] {
        entries.map { entry in
            let object = (try? JSONSerialization.jsonObject(with: Data(entry.record.payload))) as? [String: Int]
            let payload = object.map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
            return "\(entry.record.version) \(entry.record.type) \(entry.record.time) \(entry.idempotencyKey ?? "-") \(payload ?? "unreadable")"
        }
    }
}
