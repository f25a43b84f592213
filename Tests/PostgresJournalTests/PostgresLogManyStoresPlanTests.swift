import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// With many stores, what an append or a follower's read touches must not grow with the number of
/// stores: an append reaches the head rows of its own stores through the primary key (never every
/// head row), and a follower reads many stores' new records through one plan, made once, that
/// uses the log's index however small the log was when it was made.
@Suite(.serialized) struct PostgresLogManyStoresPlanTests {
    /// Sequential and index scans of `table` so far, with `log`'s statistics flushed.
    private func scans(of table: String, by log: PostgresLog, _ observer: PostgresConnection) throws -> (sequential: Int, index: Int) {
        // Flushed when the statement's transaction ends (PostgreSQL 15 would otherwise wait up
        // to a second); the observer reads them in a transaction of its own.
        try log.connection.execute("SELECT pg_stat_force_next_flush()")
        let rows = try observer.execute("SELECT seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = $1", [table])
        let row = try #require(rows.rows.first)
        return (try #require(row[0].flatMap { Int($0) }), try #require(row[1].flatMap { Int($0) }))
    }

    private func store(_ number: Int) throws -> StoreID { try StoreID("s\(number)") }

    /// Version 0 of each of the stores `s0` … `s<count - 1>`: a follower's read of all their records.
    private func versions(ofStores count: Int) throws -> [StoreID: UInt64] {
        Dictionary(uniqueKeysWithValues: try (0..<count).map { (try store($0), UInt64(0)) })
    }

    /// One action to each of `count` stores, from `first` on, spread over the thousand (no store
    /// twice for `first` in 0..<13); with `checked`, each expects its store's head at 0 (`If-Match`).
    private func groups(from first: Int, count: Int, checked: Bool) throws -> [StoreLogGroup] {
        try (0..<count).map { offset in
            var group = LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 1)])
            if checked { group.expectedHeads = [0] }
            return StoreLogGroup(group, to: try store((first + offset * 71) % 1_000))
        }
    }

    /// The function (`checked` false) and the checked path on an appender's connection.
    @Test(arguments: [false, true])
    func anAppendAmongAThousandStoresReachesOnlyItsOwnHeadRows(checked: Bool) throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        if checked { try log.findRowsThroughIndexes() }
        let observer = try PostgresConnection(conninfo: server.conninfo)
        defer { observer.close() }
        // No autovacuum: its ANALYZE would make PostgreSQL plan again, and a plan that scans the
        // table could go unseen.
        try observer.execute("ALTER TABLE remvvm_head SET (autovacuum_enabled = false)")
        try observer.execute(
            "INSERT INTO remvvm_head (store, version, incarnation, created_at) SELECT 's' || g, 0, gen_random_uuid()::text, 1 FROM generate_series(0, 999) g"
        )
        // Enough appends for the function's statements to settle on cached plans.
        for round in 0..<8 {
            let outcomes = try log.append(try groups(from: round, count: 14, checked: checked))
            #expect(outcomes == Array(repeating: .appended(1...1), count: 14))
        }
        let before = try scans(of: "remvvm_head", by: log, observer)
        for round in 8..<13 {
            #expect(try log.append(try groups(from: round, count: 14, checked: checked)) == Array(repeating: .appended(1...1), count: 14))
        }
        let after = try scans(of: "remvvm_head", by: log, observer)
        #expect(after.sequential == before.sequential, "\(checked ? "the checked path" : "the append function") read every head row")
        #expect(after.index >= before.index + 10)
        // What the appends did, store by store: one version each, nothing else touched.
        let heads = try log.heads(of: try (0..<1_000).map(store))
        #expect(heads.values.reduce(0) { $0 + $1.head } == 13 * 14)
    }

    @Test func aFollowersReadOfManyStoresIsPlannedOnceAndUsesTheIndex() throws {
        let server = try PostgresServer()
        let writer = try PostgresLog(conninfo: server.conninfo)
        defer { writer.close() }
        let reader = try PostgresLog(conninfo: server.conninfo)
        defer { reader.close() }
        try reader.planOnceThroughIndexes()
        let observer = try PostgresConnection(conninfo: server.conninfo)
        defer { observer.close() }
        try observer.execute("ALTER TABLE remvvm_log SET (autovacuum_enabled = false)")
        for number in 0..<20 {
            #expect(try writer.create(try store(number), limit: 1_000, at: 1) != .limitReached)
        }
        let one = LogGroup(actions: [LoggedAction(type: "increase", payload: [], time: 1)])
        #expect(try writer.append(try (0..<20).map { StoreLogGroup(one, to: try store($0)) }).count == 20)
        // The first reads while the log is nearly empty: a plan made now must still use the index.
        var reads = 0
        for count in [1, 3, 8, 2] {
            #expect(try reader.entries(after: try versions(ofStores: count), limit: 100).count == count)
            reads += 1
        }
        // Then the log grows (rows of other stores), without an ANALYZE that would plan again.
        try observer.execute(
            "INSERT INTO remvvm_log (store, version, type, time) SELECT 'other' || (g % 20), g, 'increase', 1 FROM generate_series(1, 50000) g"
        )
        let before = try scans(of: "remvvm_log", by: reader, observer)
        for count in [1, 5, 20, 7, 12] {
            let pages = try reader.entries(after: try versions(ofStores: count), limit: 2)
            #expect(pages.count == count)
            reads += 1
        }
        let after = try scans(of: "remvvm_log", by: reader, observer)
        #expect(after.sequential == before.sequential, "a read scanned the whole log")
        let plans = try reader.run(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%CROSS JOIN LATERAL%'"
        )
        #expect(plans.rows == [[String(reads), "0"]], "the read was planned for its parameters")
    }
}
