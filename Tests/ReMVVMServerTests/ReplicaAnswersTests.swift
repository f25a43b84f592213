import ConcurrencyKit
import Foundation
import HTTPTestSupport
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// The answers only a replica gives (`docs/http-api.md`, "Health" and "Problems"):
/// `replica-not-ready` on `POST /actions` and on commands while it does not follow the log,
/// `outcome-unknown` when its append's connection breaks once the append was sent,
/// `not-yet-applied` when its actions are stored but it does not apply them — each `503` with
/// `Retry-After: 1`.
@Suite(.serialized) struct ReplicaAnswersTests {
    private typealias Replica = ReplicaServerTests.Replica
    private typealias Cluster = ReplicaServerTests.Cluster

    /// The problem's `type` and the `currentVersion` it names, if any.
    private static func problem(_ response: TestHTTPResponse) -> (type: String?, currentVersion: UInt64?) {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        return (json["type"] as? String, (json["currentVersion"] as? NSNumber)?.uint64Value)
    }

    /// Whether `response` is the `503` problem `name` with `Retry-After: 1`.
    private static func isUnavailable(_ response: TestHTTPResponse, _ name: String) -> Bool {
        response.status == 503 && response.headers["Retry-After"] == "1"
            && response.headers["Content-Type"] == "application/problem+json"
            && problem(response).type == "urn:remvvm:problem:\(name)"
    }

    /// One replica following a new log, and a connection of the test's own to that log.
    private static func followingReplica() throws -> (cluster: Cluster, replica: Replica, admin: PostgresConnection) {
        let cluster = try Cluster(count: 1)
        try #require(cluster.converge(at: 0))
        return (cluster, cluster[0], try PostgresConnection(conninfo: cluster.conninfo))
    }

    @Test func writesAndCommandsOfAReplicaThatDoesNotFollowTheLogAreReplicaNotReady() throws {
        let cluster = try Cluster(count: 0)
        cluster.stopPostgres()
        let replica = try Replica(conninfo: cluster.conninfo, directory: cluster.root.path + "/r", name: "r", connectLater: true)
        cluster.replicas.withLock { $0 = [replica] }
        #expect(try replica.server.get("/healthz").status == 503)
        let posted = try replica.server.post(#"{"type":"increase"}"#)
        #expect(Self.isUnavailable(posted, "replica-not-ready"), "\(posted.status) \(posted.headers) \(posted.bodyString)")
        let commanded = try replica.server.command("counter/commands/increase")
        #expect(Self.isUnavailable(commanded, "replica-not-ready"), "\(commanded.status) \(commanded.headers) \(commanded.bodyString)")
        #expect(try replica.server.get("/state").status == 200, "reads are served meanwhile")

        try cluster.startPostgres()
        #expect(cluster.converge(at: 0))
        #expect(try replica.server.command("counter/commands/increase").bodyString == #"{"version":1}"#)
    }

    /// The append's own backend ends while the append runs (a statement trigger): the connection
    /// broke once the append was sent, so whether it is stored is unknown to the replica. Here it
    /// is not: a retry with the same key appends it.
    @Test func anAppendWhoseConnectionBreaksOnceSentIsOutcomeUnknownAndARetryWithItsKeyTells() throws {
        let (cluster, replica, admin) = try Self.followingReplica()
        defer { admin.close() }
        defer { withExtendedLifetime(cluster) {} }  // its PostgreSQL runs to the end
        try admin.execute("""
            CREATE FUNCTION remvvm_test_breaks() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM appended WHERE type = 'decrease') THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                    PERFORM pg_sleep(30);
                END IF;
                RETURN NULL;
            END $$
            """)
        try admin.execute("""
            CREATE TRIGGER remvvm_test_breaks AFTER INSERT ON remvvm_log REFERENCING NEW TABLE AS appended
                FOR EACH STATEMENT EXECUTE FUNCTION remvvm_test_breaks()
            """)
        let key = [("Idempotency-Key", "decrease-once")]
        let broken = try replica.server.post(#"{"type":"decrease"}"#, headers: key)
        #expect(Self.isUnavailable(broken, "outcome-unknown"), "\(broken.status) \(broken.headers) \(broken.bodyString)")
        #expect(try replica.server.get("/healthz").status == 200, "the follower's connection is not the one that broke")

        try admin.execute("DROP TRIGGER remvvm_test_breaks ON remvvm_log")
        let retried = try replica.server.post(#"{"type":"decrease"}"#, headers: key)
        #expect(retried.status == 200 && retried.bodyString == #"{"version":1}"#, "\(retried.status) \(retried.bodyString)")
        let again = try replica.server.post(#"{"type":"decrease"}"#, headers: key)
        #expect(again.bodyString == #"{"version":1}"# && again.headers["Idempotent-Replayed"] == "true")
        let rows = try admin.execute("SELECT version, type FROM remvvm_log WHERE store = 'default' ORDER BY version").rows
        #expect(rows == [["1", "decrease"]], "stored once")
    }

    /// Stored but not applied here: another build appended an entry this one cannot apply
    /// (`teleport`) while the write's append waited for the head's row lock; the write's actions
    /// follow it, the replica stops at it, and the write is answered `not-yet-applied` with the
    /// version it was stored as.
    @Test func actionsStoredThatTheReplicaDoesNotApplyAreNotYetAppliedNamingTheirVersion() throws {
        let (cluster, replica, admin) = try Self.followingReplica()
        defer { admin.close() }
        defer { withExtendedLifetime(cluster) {} }  // its PostgreSQL runs to the end
        try admin.execute("BEGIN")
        try admin.execute("UPDATE remvvm_head SET version = 1 WHERE store = 'default'")
        try admin.execute("INSERT INTO remvvm_log (store, version, type, payload, time) VALUES ('default', 1, 'teleport', '{}', 1)")
        let answer = Lock<TestHTTPResponse?>(nil)
        Thread {
            let response = try? replica.server.post(#"{"type":"increase"}"#)
            answer.withLock { $0 = response }
            answer.notifyAll()
        }.start()
        #expect(waitUntil(timeout: .seconds(10)) {
            (try? admin.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").rows.first?.first ?? nil) != "0"
        }, "the write's append waits for the row lock")
        try admin.execute("COMMIT")
        #expect(answer.wait(timeout: .seconds(30)) { $0 != nil })
        let written = try #require(answer.withLock { $0 })
        #expect(Self.isUnavailable(written, "not-yet-applied"), "\(written.status) \(written.headers) \(written.bodyString)")
        #expect(Self.problem(written).currentVersion == 2)
        let rows = try admin.execute("SELECT version, type FROM remvvm_log WHERE store = 'default' ORDER BY version").rows
        #expect(rows == [["1", "teleport"], ["2", "increase"]], "stored, after the entry the replica stopped at")
        #expect(try replica.server.get("/state").headers["ETag"] == "\"0\"", "applied nothing past what it can")
        let commanded = try replica.server.command("counter/commands/increase")
        #expect(Self.isUnavailable(commanded, "replica-not-ready"), "stopped: \(commanded.status) \(commanded.bodyString)")
    }
}
