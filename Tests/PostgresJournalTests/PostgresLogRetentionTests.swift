import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// Retention of the shared log against a real PostgreSQL: replicas register their newest
/// snapshots, and only records every registered snapshot has passed are removed — by versions
/// or by age, in chunks, with the idempotency answers of removed records kept.
@Suite(.serialized) struct PostgresLogRetentionTests {
    /// A log on a server of its own holding `records` records (timed from 1,000), with replica
    /// "a" registered at `registeredAt`; closed when released.
    private final class Fixture {
        let server: PostgresServer
        let log: PostgresLog

        init(records: Int, registeredAt snapshot: UInt64) throws {
            server = try PostgresServer()
            log = try PostgresLog(conninfo: server.conninfo)
            _ = try log.append([LogGroup(actions: (0..<records).map { LoggedAction(type: "increase", payload: [], time: 1_000 + Int64($0)) })])
            _ = try log.register(replica: "a", snapshot: snapshot)
        }

        deinit { log.close() }
    }

    /// What a removal does to record 1 (a keyed one), as statements for ``raceForLock``: the
    /// removal lock, then the record removed and its answer moved, in a transaction left open.
    private static let removingTheFirstRecord = [
        "SELECT pg_advisory_xact_lock(\(PostgresLogSchema.removalLock))",
        """
        WITH removed AS (DELETE FROM remvvm_log WHERE version = 1 RETURNING *)
        INSERT INTO remvvm_answers (idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time)
        SELECT idempotency_key, answer_status, answer_fingerprint, answer_body, answer_time FROM removed
        """,
    ]

    private func actions(_ count: Int, startingAt time: Int64 = 1_000) -> [LoggedAction] {
        (0..<count).map { LoggedAction(type: "increase", payload: [], time: time + Int64($0)) }
    }

    private func keyed(_ key: String, actions count: Int = 1) -> LogGroup {
        LogGroup(
            actions: actions(count),
            answer: KeptAnswer(key: key, fingerprint: [7], status: 200, body: Array(#"{"key":"\#(key)"}"#.utf8), time: 5)
        )
    }

    @Test func nothingIsRemovedWhileNoReplicaIsRegistered() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        _ = try log.append([LogGroup(actions: actions(20))])
        #expect(try log.removeRecords(keeping: 0, recordedBefore: nil) == nil)
        #expect(try log.extent() == SharedLogExtent(earliest: 1, head: 20))
    }

    @Test func recordsBeforeTheOldestRegisteredSnapshotGoAndTheRetainedVersionsStay() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        _ = try log.append([LogGroup(actions: actions(50))])
        #expect(try log.register(replica: "a", snapshot: 30) == SharedLogExtent(earliest: 1, head: 50))
        #expect(try log.register(replica: "b", snapshot: 45) == SharedLogExtent(earliest: 1, head: 50))
        #expect(try log.removeRecords(keeping: 10, recordedBefore: nil) == 20)
        #expect(try log.extent() == SharedLogExtent(earliest: 21, head: 50))
        #expect(try log.removeRecords(keeping: 10, recordedBefore: nil) == nil, "nothing more until a snapshot moves")

        // Following from before the removed records stops, saying why; reading the history
        // starts at the earliest record.
        #expect {
            _ = try log.entries(after: 0, limit: 10)
        } throws: { error in
            (error as? PostgresLogError)?.code == .corrupt && "\(error)".contains("journalRetention")
        }
        #expect(try log.entries(after: 0, limit: 3, fromEarliest: true).map(\.record.version) == [21, 22, 23])
        #expect(try log.entries(after: 20, limit: 2).map(\.record.version) == [21, 22])

        // A replica that cannot follow any more is not registered: its old snapshot does not
        // hold retention back.
        let refused = try log.register(replica: "b", snapshot: 10)
        #expect(refused == SharedLogExtent(earliest: 21, head: 50) && !refused.holdsEveryRecord(after: 10))
        let ahead = try log.register(replica: "c", snapshot: 60)
        #expect(ahead.head == 50, "a snapshot past the head belongs to another log")
        _ = try log.register(replica: "a", snapshot: 50)
        #expect(try log.removeRecords(keeping: 10, recordedBefore: nil) == 35, "b's registration at 45 stands; c's was not made")
    }

    @Test func aLowerSnapshotRegisteredAgainHoldsRetentionBack() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        // Restored from an older copy of its data directory: the records after it are there.
        #expect(try fixture.log.register(replica: "a", snapshot: 12).holdsEveryRecord(after: 12))
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil) == 12)
        #expect(try fixture.log.extent() == SharedLogExtent(earliest: 13, head: 40))
    }

    /// A registration not renewed for the expiry holds nothing back and is deleted; one renewed
    /// (registered again, with the same snapshot) stays.
    @Test func registrationsNotRenewedForTheExpiryAreForgotten() throws {
        let fixture = try Fixture(records: 60, registeredAt: 10)
        let log = fixture.log
        _ = try log.register(replica: "b", snapshot: 30)
        _ = try log.register(replica: "c", snapshot: 50)
        // "a" and "b" were last heard of two hours ago (PostgreSQL's clock); "b" renews now.
        _ = try log.run("UPDATE remvvm_replicas SET registered_at = now() - interval '2 hours' WHERE name IN ('a', 'b')")
        _ = try log.register(replica: "b", snapshot: 30)

        // Without an expiry the silent "a" holds retention back at its snapshot; with one, it
        // does not, even before its row is deleted.
        #expect(try log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 5, maxChunks: 1) == 5)
        #expect(try log.removeRecords(keeping: 0, recordedBefore: nil, ignoringReplicasSilentFor: .seconds(10_800)) == 10, "silent for 2 h, not 3")
        #expect(try log.removeRecords(keeping: 0, recordedBefore: nil, ignoringReplicasSilentFor: .seconds(3_600)) == 30)
        #expect(try log.extent() == SharedLogExtent(earliest: 31, head: 60))

        let forgotten = try log.forgetReplicas(silentFor: .seconds(3_600))
        #expect(forgotten.map(\.name) == ["a"] && forgotten.map(\.snapshot) == [10])
        #expect(forgotten.allSatisfy { (7_200..<7_300).contains($0.silentSeconds) }, "\(forgotten)")
        let names = try log.run("SELECT name FROM remvvm_replicas ORDER BY name").rows.compactMap { $0.first ?? nil }
        #expect(names == ["b", "c"])
        #expect(try log.forgetReplicas(silentFor: .seconds(3_600)).isEmpty)

        // "a" back: its records are gone, so it is not registered again.
        #expect(!(try log.register(replica: "a", snapshot: 10)).holdsEveryRecord(after: 10))
        #expect(try log.run("SELECT count(*) FROM remvvm_replicas WHERE name = 'a'").rows.first?.first == "0")
    }

    /// The row keeps which process registered it: the next registration of the name learns it.
    @Test func aRegistrationSaysWhichProcessHadTheNameBefore() throws {
        let fixture = try Fixture(records: 10, registeredAt: 0)
        let log = fixture.log
        let first = try log.register(replica: "b", instance: "host:1:a", snapshot: 5)
        #expect(first == SharedLogRegistration(extent: SharedLogExtent(earliest: 1, head: 10)))
        let again = try log.register(replica: "b", instance: "host:1:a", snapshot: 6)
        #expect(again.previousInstance == "host:1:a" && again.previousAgeSeconds.map { (0..<60).contains($0) } == true)
        _ = try log.run("UPDATE remvvm_replicas SET registered_at = now() - interval '90 seconds' WHERE name = 'b'")
        let other = try log.register(replica: "b", instance: "host:2:b", snapshot: 6)
        #expect(other.previousInstance == "host:1:a" && other.previousAgeSeconds.map { (90..<150).contains($0) } == true, "\(other)")
        // "a" was registered without an instance (as by a build that does not record it).
        #expect(try log.register(replica: "a", instance: "host:3:c", snapshot: 0).previousInstance == nil)
        let rows = try log.run("SELECT name, instance FROM remvvm_replicas ORDER BY name").rows
        #expect(rows == [["a", "host:3:c"], ["b", "host:2:b"]])
    }

    /// A lock held elsewhere on the registrations (an administrator's open transaction) makes a
    /// registration fail after the maintenance timeout, instead of holding up the replica's
    /// renewals, snapshots and clean stop for as long as the lock stays.
    @Test func aRegistrationBlockedByALockGivesUpAfterTheTimeout() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10), maintenanceTimeout: .seconds(1))
        defer { log.stop() }
        /// Holds the registrations' table locked while a registration tries, then lets go.
        func registerWhileTheTableIsLocked() throws {
            let holder = try PostgresConnection(conninfo: server.conninfo)
            defer { holder.close() }
            // PostgreSQL ends the holder's session after 20 s, should the registration wait for it.
            try holder.execute("SET idle_in_transaction_session_timeout = '20s'")
            try holder.execute("BEGIN")
            try holder.execute("LOCK TABLE remvvm_replicas IN ACCESS EXCLUSIVE MODE")
            let started = ContinuousClock.now
            #expect {
                _ = try log.register(replica: "r", instance: "i", snapshot: 0)
            } throws: { error in
                (error as? JournalError)?.code == .writeFailed && "\(error)".contains("statement timeout")
            }
            #expect(ContinuousClock.now - started < .seconds(15))
            try holder.execute("ROLLBACK")
            #expect(try log.register(replica: "r", instance: "i", snapshot: 0).registered(0))
        }
        try registerWhileTheTableIsLocked()
        // The limit outlives a reconnect (PostgreSQL restarted).
        server.stop()
        try server.start()
        try registerWhileTheTableIsLocked()
    }

    /// A removal asked to stop (the replica is stopping) ends between its transactions.
    @Test func aRemovalStopsBetweenTransactionsWhenAskedTo() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        var asked = 0
        let removed = try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 5) {
            asked += 1
            return asked <= 2
        }
        #expect(removed == 10, "two transactions of 5, then asked to stop")
        #expect(try fixture.log.extent() == SharedLogExtent(earliest: 11, head: 40))
    }

    /// Registrations, renewals and removals share one connection, kept between calls, which a
    /// PostgreSQL restart does not fail for good: the call that finds it broken runs again on a
    /// new one. After stop, each call opens its own (a clean stop registers its last snapshot).
    @Test func registrationsShareOneConnectionThatSurvivesARestart() throws {
        let server = try PostgresServer()
        let log = try PostgresSharedLog(conninfo: server.conninfo, patience: .seconds(10))
        let observer = try PostgresConnection(conninfo: server.conninfo)
        defer { observer.close() }
        // The newest session besides the observer's: the maintenance connection, once opened.
        func newestSession() throws -> String? {
            try observer.execute(
                "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY backend_start DESC LIMIT 1"
            ).rows.first?.first ?? nil
        }
        let reader = try newestSession()
        _ = try log.register(replica: "r", instance: "i", snapshot: 0)
        let maintenance = try #require(try newestSession())
        #expect(maintenance != reader, "a session of its own, still open")
        for _ in 0..<5 {
            _ = try log.register(replica: "r", instance: "i", snapshot: 0)
            _ = try log.forgetReplicas(silentFor: .seconds(3_600))
            _ = try log.removeRecords(keeping: 0, recordedBefore: nil, ignoringReplicasSilentFor: nil)
        }
        #expect(try newestSession() == maintenance, "the same session served every call")

        server.stop()
        try server.start()
        #expect(try log.register(replica: "r", instance: "i", snapshot: 0).registered(0), "runs again on a new connection")
        log.stop()
        #expect(try log.register(replica: "r", instance: "i", snapshot: 0).registered(0), "after stop, on a connection of its own")
    }

    @Test func manyRecordsGoInChunksUpToTheHead() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 7) == 40)
        #expect(try fixture.log.extent() == SharedLogExtent(earliest: nil, head: 40))
        // A new replica without a snapshot cannot follow; one at the head can.
        #expect(!(try fixture.log.register(replica: "new", snapshot: 0)).holdsEveryRecord(after: 0))
        #expect(try fixture.log.register(replica: "copy", snapshot: 40).holdsEveryRecord(after: 40))
        // Appends go on after the removed versions.
        #expect(try fixture.log.append([LogGroup(actions: actions(2))]) == [.appended(41...42)])
        #expect(try fixture.log.extent() == SharedLogExtent(earliest: 41, head: 42))
    }

    @Test func aBacklogGoesOverSeveralCalls() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 5, maxChunks: 2) == 10)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 5, maxChunks: 2) == 20)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 5, maxChunks: 100) == 40)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil, chunk: 0) == nil, "a chunk below 1 still ends")
    }

    /// A log (on a server of its own) with one keyed record, "k", registered at its version;
    /// its removal runs while `statements` hold a transaction open, as ``raceForLock`` says.
    private func removeAKeyedRecord(
        racing statements: [String], waiter: String
    ) throws -> (server: PostgresServer, removed: UInt64?, answers: [String: KeptAnswer]) {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([keyed("k")]) == [.appended(1...1)])
        _ = try log.register(replica: "a", snapshot: 1)
        let removed = try raceForLock(server.conninfo, holding: statements, waiter: waiter) { other throws(PostgresLogError) in
            try other.removeRecords(keeping: 0, recordedBefore: nil)
        }
        return (server, removed, try log.answers(forKeys: ["k"]))
    }

    @Test func keysOfRemovedRecordsAreStillAnsweredAndRefused() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([keyed("k1"), LogGroup(actions: actions(1)), keyed("k2", actions: 2)])
            == [.appended(1...1), .appended(2...2), .appended(3...4)])
        let before = try log.answers(forKeys: ["k1", "k2"])
        #expect(before.count == 2)
        _ = try log.register(replica: "a", snapshot: 4)
        #expect(try log.removeRecords(keeping: 0, recordedBefore: nil) == 4)
        #expect(try log.answers(forKeys: ["k1", "k2"]) == before)
        // Refused on the one-statement path and on the checked one (If-Match).
        #expect(try log.append([keyed("k1")]) == [.duplicateKey("k1")])
        #expect(try log.append([LogGroup(actions: actions(1), answer: before["k2"], expectedHeads: [4])]) == [.duplicateKey("k2")])
        #expect(try log.head() == 4)
        // They expire like any kept answer.
        try log.removeAnswers(keptBefore: 6)
        #expect(try log.answers(forKeys: ["k1", "k2"]).isEmpty)
        #expect(try log.append([keyed("k1")]) == [.appended(5...5)])
    }

    @Test func ageRetentionRemovesOnlyRecordsRecordedBeforeTheCutoff() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        // Versions 1…30 recorded at 1001…1030.
        _ = try log.append([LogGroup(actions: actions(30, startingAt: 1_001))])
        #expect(try log.newestVersion(recordedBefore: 1_001) == nil)
        #expect(try log.newestVersion(recordedBefore: 1_002) == 1)
        #expect(try log.newestVersion(recordedBefore: 1_017) == 16)
        #expect(try log.newestVersion(recordedBefore: 9_999) == 30)
        _ = try log.register(replica: "a", snapshot: 25)
        #expect(try log.removeRecords(keeping: 0, recordedBefore: 1_011) == 10)
        #expect(try log.newestVersion(recordedBefore: 1_005) == nil, "its records are gone")
        #expect(try log.newestVersion(recordedBefore: 1_017) == 16)
        #expect(try log.removeRecords(keeping: 0, recordedBefore: 9_999) == 25, "never past the oldest snapshot")
        #expect(try log.extent() == SharedLogExtent(earliest: 26, head: 30))
    }

    /// A registration made while a removal holds `remvvm_replicas` waits for it, then sees what
    /// it removed: a replica never registers (and trusts) records that are about to go.
    @Test func aRegistrationDuringARemovalSeesWhatItRemoved() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        let extent = try raceForLock(
            fixture.server.conninfo,
            holding: ["LOCK TABLE remvvm_replicas IN SHARE MODE", "DELETE FROM remvvm_log WHERE version <= 30"],
            waiter: "INSERT INTO remvvm_replicas%"
        ) { other throws(PostgresLogError) in try other.register(replica: "new", snapshot: 10) }
        #expect(extent == SharedLogExtent(earliest: 31, head: 40) && !extent.holdsEveryRecord(after: 10))
        _ = try fixture.log.register(replica: "a", snapshot: 40)
        #expect(try fixture.log.removeRecords(keeping: 0, recordedBefore: nil) == 40, "\"new\" was not registered")
    }

    /// A removal that starts while a registration is being written waits for it, then keeps
    /// what the registered snapshot needs.
    @Test func aRemovalDuringARegistrationKeepsWhatItNeeds() throws {
        let fixture = try Fixture(records: 40, registeredAt: 40)
        let removed = try raceForLock(
            fixture.server.conninfo,
            holding: ["INSERT INTO remvvm_replicas VALUES ('new', 10, now())"],
            waiter: "LOCK TABLE remvvm_replicas%"
        ) { other throws(PostgresLogError) in try other.removeRecords(keeping: 0, recordedBefore: nil) }
        #expect(removed == 10)
        #expect(try fixture.log.extent() == SharedLogExtent(earliest: 11, head: 40))
    }

    /// An append of a key whose record a removal is moving to `remvvm_answers` (not committed
    /// yet) is refused, without waiting for the removal: with the removal lock taken, the check
    /// reads both tables in one snapshot, which shows the key on its record. (Checking
    /// `remvvm_answers` alone, the append would wait on the records' unique index, go on once the
    /// removal committed, and store the key a second time.)
    @Test func anAppendOfAKeyBeingMovedByARemovalIsRefused() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([keyed("moving"), LogGroup(actions: actions(1))]) == [.appended(1...1), .appended(2...2)])
        let outcomes = try raceForLock(
            server.conninfo,
            holding: Self.removingTheFirstRecord,
            waiter: "SELECT \(PostgresLogSchema.appendFunction)%",
            mayFinishFirst: true
        ) { other throws(PostgresLogError) in try other.append([keyed("moving")]) }
        #expect(outcomes == [.duplicateKey("moving")])
        #expect(try log.head() == 2)
        #expect(try log.answers(forKeys: ["moving"]).count == 1)
    }

    /// A removal waits for the appends in flight that checked `remvvm_answers` alone (they hold
    /// the removal lock shared) before it moves any key.
    @Test func aRemovalWaitsForAnAppendThatCheckedOnlyKeptAnswers() throws {
        let race = try removeAKeyedRecord(
            racing: ["SELECT pg_try_advisory_xact_lock_shared(\(PostgresLogSchema.removalLock))"],
            waiter: "SELECT pg_advisory_xact_lock%"
        )
        #expect(race.removed == 1)
        #expect(race.answers.count == 1)
    }

    /// Expiry waits for a removal moving keys, then finds them where they went: an expired key
    /// in flight between a record and `remvvm_answers` is not missed.
    @Test func expiryDuringARemovalForgetsTheKeysItMoves() throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.append([keyed("expired")]) == [.appended(1...1)])
        try raceForLock(
            server.conninfo,
            holding: Self.removingTheFirstRecord,
            waiter: "SELECT pg_advisory_xact_lock_shared%"
        ) { other throws(PostgresLogError) in try other.removeAnswers(keptBefore: 6) }
        #expect(try log.answers(forKeys: ["expired"]).isEmpty)
    }
}
