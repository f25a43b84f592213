import Journal
@testable import PostgresJournal
import PostgresTestSupport
import Testing

/// A log of schema version 1 (one store: an only head row, keys unique in the whole log) is
/// upgraded in place at the first start of this build: its rows become the store `default`'s,
/// its identity stays (replicas' snapshots remain valid), and stores can be created beside it.
@Suite struct PostgresLogUpgradeTests {
    /// The tables of schema version 1 as its last builds made them; `early`: as its first builds
    /// did (no kept answers without actions, no registrations, no identity).
    private static func version1(early: Bool) -> String {
        var sql = """
            CREATE TABLE remvvm_meta (key text PRIMARY KEY, value text NOT NULL);
            CREATE TABLE remvvm_head (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), version bigint NOT NULL);
            CREATE TABLE remvvm_log (
                version bigint PRIMARY KEY, type text NOT NULL, payload jsonb, time bigint NOT NULL,
                idempotency_key text UNIQUE, answer_status integer, answer_fingerprint bytea, answer_body bytea, answer_time bigint
            );
            INSERT INTO remvvm_head VALUES (true, 3);
            INSERT INTO remvvm_meta VALUES ('schema', '1');
            INSERT INTO remvvm_log VALUES (1, 'add', '{"by":1}', 101, NULL, NULL, NULL, NULL, NULL),
                (2, 'add', '{"by":2}', 102, 'k2', 200, '\\x01', convert_to('{"version":2}', 'UTF8'), 7),
                (3, 'add', NULL, 103, NULL, NULL, NULL, NULL, NULL);
            """
        if !early {
            sql += """
                INSERT INTO remvvm_meta VALUES ('log', 'the-old-identity');
                CREATE TABLE remvvm_answers (
                    idempotency_key text PRIMARY KEY, answer_status integer NOT NULL, answer_fingerprint bytea NOT NULL,
                    answer_body bytea NOT NULL, answer_time bigint NOT NULL
                );
                CREATE INDEX remvvm_answers_time ON remvvm_answers (answer_time);
                CREATE INDEX remvvm_log_answer_time ON remvvm_log (answer_time) WHERE idempotency_key IS NOT NULL;
                INSERT INTO remvvm_answers VALUES ('held', 202, '\\x02', convert_to('{"accepted":true}', 'UTF8'), 8);
                CREATE TABLE remvvm_replicas (name text PRIMARY KEY, snapshot_version bigint NOT NULL, registered_at timestamptz NOT NULL, instance text);
                INSERT INTO remvvm_replicas VALUES ('r1', 2, now(), 'host:1:a');
                CREATE FUNCTION remvvm_append_v2(n bigint) RETURNS bigint LANGUAGE sql AS 'SELECT n';
                """
        }
        return sql
    }

    @Test(arguments: [false, true]) func aLogOfVersion1BecomesTheStoreDefault(early: Bool) throws {
        let server = try PostgresServer()
        do {
            let raw = try PostgresConnection(conninfo: server.conninfo)
            defer { raw.close() }
            try raw.execute(Self.version1(early: early))
        }
        let log = try PostgresLog(conninfo: server.conninfo)
        defer { log.close() }
        #expect(try log.run("SELECT value FROM remvvm_meta WHERE key = 'schema'").rows == [["2"]])
        if !early { #expect(log.identity == "the-old-identity") }
        let description = try #require(try log.describe(.default))
        #expect(description.version == 3 && description.lastActionAt == 103 && description.incarnation == log.identity)
        #expect(try log.entries(after: 0, limit: 10).map(\.record.version) == [1, 2, 3])
        #expect(try log.answer(forKey: "k2")?.body == Array(#"{"version":2}"#.utf8))
        #expect(try log.append([LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 104)])]) == [.appended(4...4)])
        let retry = LogGroup(actions: [LoggedAction(type: "add", payload: [], time: 105)],
                             answer: KeptAnswer(key: "k2", fingerprint: [1], status: 200, body: [], time: 9))
        #expect(try log.append([retry]) == [.duplicateKey("k2")], "an old key is still refused in default")
        if !early {
            #expect(try log.answer(forKey: "held")?.status == 202)
            #expect(try log.run("SELECT store, name, snapshot_version, instance FROM remvvm_replicas").rows == [["default", "r1", "2", "host:1:a"]])
            #expect(try log.run("SELECT count(*) FROM pg_proc WHERE proname = 'remvvm_append_v2'").rows == [["0"]])
        }
        // The same key in a store created beside it is that store's own.
        let room = StoreID.make("room-1")
        _ = try log.create(room, limit: 10, at: 1)
        #expect(try log.append([retry], to: room) == [.appended(1...1)])
        // A second start finds the schema of this build and changes nothing.
        let again = try PostgresLog(conninfo: server.conninfo)
        defer { again.close() }
        #expect(try again.head() == 4)
        #expect(again.identity == log.identity)
    }
}
