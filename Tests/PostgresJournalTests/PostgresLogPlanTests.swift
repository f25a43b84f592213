import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// Statements whose plans a session keeps must not go on scanning a table that has grown since
/// they were planned: the key checks of appends look kept answers up by index however large
/// `remvvm_answers` became after the first appends (it grows with `202`/`422` answers and with
/// the answers of records removed by retention).
@Suite(.serialized) struct PostgresLogPlanTests {
    private func keyed(_ key: String) -> LogGroup {
        LogGroup(
            actions: [LoggedAction(type: "increase", payload: [], time: 1)],
            answer: KeptAnswer(key: key, fingerprint: [1], status: 200, body: Array("{}".utf8), time: 1)
        )
    }

    /// Sequential and index scans of `remvvm_answers` so far, and the index entries they read,
    /// with `log`'s statistics flushed.
    private func scans(of log: PostgresLog, _ observer: PostgresConnection) throws -> (sequential: Int, index: Int, entriesRead: Int) {
        // Flushed when the statement's transaction ends (PostgreSQL 15 would otherwise wait up
        // to a second); the observer reads them in a transaction of its own.
        try log.connection.execute("SELECT pg_stat_force_next_flush()")
        let rows = try observer.execute(
            """
            SELECT seq_scan, coalesce(idx_scan, 0),
                   (SELECT sum(idx_tup_read) FROM pg_stat_user_indexes WHERE relname = 'remvvm_answers')
            FROM pg_stat_user_tables WHERE relname = 'remvvm_answers'
            """
        )
        let row = try #require(rows.rows.first)
        return (try #require(row[0].flatMap { Int($0) }), try #require(row[1].flatMap { Int($0) }), try #require(row[2].flatMap { Int($0) }))
    }

    /// `appendersConnection`: the log's connection finds rows through indexes only, as a
    /// replica's appender's does (`PostgresGroupCommit`); its key checks must still look keys up,
    /// not read a whole index (a cached plan read all of `answer_time`'s once, 88 ms per append).
    @Test(arguments: [false, true], [false, true])
    func keyChecksUseTheIndexAfterTheTableGrew(checked: Bool, appendersConnection: Bool) throws {
        let server = try PostgresServer()
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        if appendersConnection { try log.findRowsThroughIndexes() }
        let observer = try PostgresConnection(conninfo: server.conninfo)
        defer { observer.close() }
        // Enough appends while the table is empty for a session to settle on a cached plan.
        for index in 0..<8 {
            var group = keyed("early-\(index)")
            if checked { group.expectedHeads = [UInt64(index)] }
            #expect(try log.append([group]) == [.appended(UInt64(index + 1)...UInt64(index + 1))])
        }
        // No autovacuum: its ANALYZE would make PostgreSQL plan again, and a cached plan that
        // scans the table could go unseen.
        try observer.execute("ALTER TABLE remvvm_answers SET (autovacuum_enabled = false)")
        try observer.execute(
            "INSERT INTO remvvm_answers SELECT 'bulk-' || g, 200, '\\x01'::bytea, '\\x01'::bytea, 1 FROM generate_series(1, 50000) g"
        )
        let before = try scans(of: log, observer)
        for index in 0..<5 {
            var group = keyed("late-\(index)")
            if checked { group.expectedHeads = [UInt64(8 + index)] }
            #expect(try log.append([group]) == [.appended(UInt64(9 + index)...UInt64(9 + index))])
        }
        #expect(try log.append([keyed("bulk-7")]) == [.duplicateKey("bulk-7")])
        let after = try scans(of: log, observer)
        #expect(after.sequential == before.sequential, "\(checked ? "the checked path" : "the append function") scanned remvvm_answers")
        #expect(after.index >= before.index + 6)
        // Keys looked up one by one: a few entries each, never the 50,000 of a whole index.
        #expect(after.entriesRead - before.entriesRead < 100)
    }
}
