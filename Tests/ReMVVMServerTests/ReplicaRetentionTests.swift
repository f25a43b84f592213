import Foundation
import HTTPTestSupport
import Journal
@testable import PostgresJournal
import ReMVVMServer
import SQLiteJournal
import Testing

/// `journalRetention` on replicas (`docs/replicas.md`, "Retention"): each replica registers its
/// newest snapshot in the shared log and removes the records every registered snapshot has
/// passed, keeping the retention before the oldest; a replica whose records are gone refuses to
/// start, saying what to do; one restarted from its own snapshot catches up.
@Suite(.serialized) struct ReplicaRetentionTests {
    private typealias Cluster = ReplicaServerTests.Cluster
    private typealias Replica = ReplicaServerTests.Replica

    /// The oldest snapshot registered in the log, and the log's extent, read in one transaction.
    private static func retentionState(_ connection: PostgresConnection) throws -> (oldestSnapshot: UInt64?, earliest: UInt64?, head: UInt64) {
        let rows = try connection.execute(
            "SELECT (SELECT min(snapshot_version) FROM remvvm_replicas), (SELECT min(version) FROM remvvm_log), (SELECT version FROM remvvm_head)"
        )
        let row = try #require(rows.rows.first)
        return (row[0].flatMap { UInt64($0) }, row[1].flatMap { UInt64($0) }, try #require(row[2].flatMap { UInt64($0) }))
    }

    @Test func replicasRemoveWhatEveryRegisteredSnapshotPassedAndKeepTheRetention() throws {
        let cluster = try Cluster(count: 2, snapshotEvery: 20, journalRetention: .versions(5))
        #expect(cluster.converge(at: 0), "both follow the log before taking writes")
        for index in 0..<100 {
            #expect(try cluster[index % 2].server.post(#"{"type":"increase"}"#).status == 200)
        }
        #expect(cluster.converge(at: 100))
        let connection = try PostgresConnection(conninfo: cluster.conninfo)
        defer { connection.close() }
        // Snapshots are written off the request path; each is registered, then what it allows is
        // removed: everything up to 5 versions before the oldest registered snapshot, no more.
        #expect(waitUntil(timeout: .seconds(30)) {
            guard let state = try? Self.retentionState(connection), let oldest = state.oldestSnapshot, oldest >= 20 else { return false }
            return state.earliest == oldest - 5 + 1
        })
        let state = try Self.retentionState(connection)
        let earliest = try #require(state.earliest)
        #expect(earliest > 1 && state.head == 100)

        // The action log starts at the earliest record kept, on both replicas (a snapshot written
        // meanwhile may have removed more since).
        for index in 0..<2 {
            let response = try cluster[index].server.get("/actions?since=0&limit=3")
            #expect(response.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let first = try #require((json["earliest"] as? NSNumber)?.uint64Value)
            #expect(first >= earliest)
            let versions = (json["actions"] as? [[String: Any]])?.compactMap { ($0["version"] as? NSNumber)?.uint64Value }
            #expect(versions == [first, first + 1, first + 2])
        }

        // A new replica without a snapshot cannot follow the log any more: it says so and what to do.
        let late = try TemporaryDirectory(prefix: "remvvm-replica-late")
        #expect {
            _ = try Replica(conninfo: cluster.conninfo, directory: late.path, name: "late", journalRetention: .versions(5))
        } throws: { error in
            "\(error)".contains("removed by journalRetention") && "\(error)".contains("copy the data directory of another replica")
        }
        let registered = try connection.execute("SELECT count(*) FROM remvvm_replicas WHERE name = 'late'")
        #expect(registered.rows.first?.first == "0", "the refused replica is not registered")

        // A replica restarted from its own snapshot catches up, and writes go on.
        let directory = cluster[0].directory
        cluster.replicas.withLock { $0[0].server.server.shutdown() }
        // A clean stop writes (or already had) a snapshot of the last version and registers it,
        // releasing the name (no process recorded).
        let stopped = try connection.execute("SELECT snapshot_version, instance FROM remvvm_replicas WHERE name = 'r0'")
        #expect(stopped.rows == [["100", nil]])
        for _ in 0..<10 {
            #expect(try cluster[1].server.post(#"{"type":"increase"}"#).status == 200)
        }
        let captured = CapturedLog()
        let restarted = try Replica(
            conninfo: cluster.conninfo, directory: directory, name: "r0", snapshotEvery: 20, journalRetention: .versions(5),
            logger: captured.logger(level: .warning)
        )
        cluster.replicas.withLock { $0[0] = restarted }
        // Its start found the name released: no warning of another process using it.
        let warnings = captured.messages.next(10, timeout: .milliseconds(100))
        #expect(!warnings.contains { $0.contains("another process") }, "\(warnings)")
        #expect(cluster.converge(at: 110))
        #expect(try cluster[0].server.post(#"{"type":"increase"}"#).status == 200)
        #expect(cluster.converge(at: 111))
        #expect(try cluster[0].server.get("/state").body == cluster[1].server.get("/state").body)
        let after = try Self.retentionState(connection)
        let oldest = try #require(after.oldestSnapshot)
        let kept = try #require(after.earliest)
        #expect(kept >= earliest && kept - 1 <= oldest - 5)
    }

    /// Whether replica `name`'s registration was renewed within the last `seconds` (PostgreSQL's
    /// clock), and the snapshot it names; nil when it has no row.
    private static func registration(_ connection: PostgresConnection, _ name: String, renewedWithin seconds: Int) throws -> (fresh: Bool, snapshot: UInt64)? {
        let rows = try connection.execute(
            "SELECT registered_at > now() - make_interval(secs => $2::float8), snapshot_version FROM remvvm_replicas WHERE name = $1",
            [name, String(seconds)]
        )
        guard let row = rows.rows.first else { return nil }
        return (row[0] == "t", try #require(row[1].flatMap { UInt64($0) }))
    }

    /// Running replicas renew their registration; one that stopped renewing it for `replicaExpiry`
    /// holds retention back no longer: its row is deleted, the records its snapshot needed are
    /// removed, and it must start again from another replica's data directory.
    @Test func aReplicaSilentForLongerThanTheExpiryIsForgottenWhileRunningOnesRenew() throws {
        // Renewals every second; an expiry of an hour, which the test reaches by dating rows back.
        let cluster = try Cluster(
            count: 2, snapshotEvery: 20, journalRetention: .versions(5), replicaExpiry: .seconds(3_600), replicaRenewal: .seconds(1)
        )
        #expect(cluster.converge(at: 0), "both follow the log before taking writes")
        for _ in 0..<40 {
            #expect(try cluster[1].server.post(#"{"type":"increase"}"#).status == 200)
        }
        #expect(cluster.converge(at: 40))
        let connection = try PostgresConnection(conninfo: cluster.conninfo)
        defer { connection.close() }

        // A running replica renews its registration: dated an hour back, it is renewed within
        // a few seconds, with the snapshot it had registered.
        let registered = try #require(try Self.registration(connection, "r1", renewedWithin: 60))
        let dated = try connection.execute("UPDATE remvvm_replicas SET registered_at = now() - interval '2 hours' WHERE name = 'r1' RETURNING name")
        #expect(dated.rows == [["r1"]])
        #expect(waitUntil(timeout: .seconds(30)) {
            (try? Self.registration(connection, "r1", renewedWithin: 60)).map { $0.fresh && $0.snapshot >= registered.snapshot } ?? false
        })

        // r0 stops cleanly: its registration (snapshot 40) is no longer renewed, but within the
        // expiry it still holds retention back.
        let directory = cluster[0].directory
        cluster.replicas.withLock { $0[0].server.server.shutdown() }
        #expect(try Self.registration(connection, "r0", renewedWithin: 60)?.snapshot == 40)
        for _ in 0..<20 {
            #expect(try cluster[1].server.post(#"{"type":"increase"}"#).status == 200)
        }
        #expect(waitUntil(timeout: .seconds(30)) {
            (try? Self.retentionState(connection))?.earliest == 36
        }, "a snapshot of r1 past 40 registered, then records removed up to 5 before r0's 40")
        #expect(try Self.registration(connection, "r0", renewedWithin: 60) != nil)

        // Once r0's registration is older than the expiry (dated back: no need to wait for it),
        // the next removal forgets it and removes up to 5 before r1's snapshot.
        _ = try connection.execute("UPDATE remvvm_replicas SET registered_at = now() - interval '2 hours' WHERE name = 'r0'")
        for _ in 0..<20 {
            #expect(try cluster[1].server.post(#"{"type":"increase"}"#).status == 200)
        }
        #expect(waitUntil(timeout: .seconds(30)) {
            (try? Self.retentionState(connection)).map { state in
                state.oldestSnapshot.map { $0 > 40 && state.earliest == $0 - 5 + 1 } ?? false
            } ?? false
        })
        #expect(try Self.registration(connection, "r0", renewedWithin: 60) == nil, "r0's row is deleted")

        // r0 cannot follow from its snapshot any more: it refuses to start, saying what to do.
        #expect {
            _ = try Replica(conninfo: cluster.conninfo, directory: directory, name: "r0", snapshotEvery: 20, journalRetention: .versions(5), replicaExpiry: .seconds(3_600))
        } throws: { error in
            "\(error)".contains("removed by journalRetention") && "\(error)".contains("copy the data directory of another replica")
        }
        #expect(try Self.registration(connection, "r0", renewedWithin: 60) == nil)
    }

    /// Two replicas under one name overwrite each other's registration: each says so in its log,
    /// as an error, once the other registered after it.
    @Test func twoReplicasUnderOneNameSaySo() throws {
        let cluster = try Cluster(count: 1, replicaRenewal: .seconds(1))
        #expect(cluster.converge(at: 0))
        let captured = CapturedLog()
        let twin = try Replica(
            conninfo: cluster.conninfo, directory: cluster.root.path + "/twin", name: "r0", replicaRenewal: .seconds(1),
            logger: captured.logger(level: .warning)
        )
        defer { twin.server.server.shutdown() }
        // At start the name was registered moments ago by another process (a warning, unless
        // r0's last renewal is late on a loaded machine: it may also be this replica's own
        // previous run); after renewals (every second), an error.
        var error: String?
        let deadline = ContinuousClock.now + .seconds(30)
        while error == nil, ContinuousClock.now < deadline, let message = captured.messages.next(timeout: .seconds(5)) {
            if message.hasPrefix("error") { error = message }
        }
        #expect(error?.contains("another process") == true && error?.contains("give each replica a name of its own") == true, "\(error ?? "no error")")
    }
}
