extension PostgresLogSchema {
    /// The function that appends groups without `If-Match` in one call (``PostgresLog``): its
    /// name carries its version, so a build that needs another one creates it beside this one.
    /// (`remvvm_append_v5` took no incarnations: an append to a store deleted and created again
    /// went to the new store, and its records doorbell did not say which incarnation its rows were
    /// of; `remvvm_append_v4` rang only the heads, so that every other replica read the rows back;
    /// `remvvm_append_v3` found its stores' head rows by reading every head row, twice per call,
    /// once the log held hundreds of stores; `v2` appended to the only store of schema version 1;
    /// `v1` checked `remvvm_answers` through a plan cached while that table was small.)
    static let appendFunction = "remvvm_append_v6"

    /// The share of PostgreSQL's notification queue (8 GB) above which appends ring only their
    /// heads: the queue keeps every notification until the slowest listener has read it, so a
    /// listener that stopped reading (a replica frozen with its connection open) makes it grow until
    /// NOTIFY — and with it every append — fails. Rows make an append's notifications about ten
    /// times larger; beyond 1 % (~80 MB) of the queue they are left out, and the queue grows as
    /// fast as it did with heads only.
    static let recordsQueueUsageLimit = "0.01"

    /// The argument types of ``appendFunction``, as `to_regprocedure` names them.
    static let appendFunctionArguments =
        "text[], bigint[], bigint[], text[], text[], bigint[], text[], text[], bigint[], text[], integer[], bytea[], bytea[], bytea[], bigint[], text"

    /// The columns of one row to append, as both appends unnest them from their array arguments:
    /// its store, its ordinal among the rows of its store in the append (1…n), the action and
    /// its answer.
    static let appendedRow = "r(store, ord, type, payload, time, key, status, fingerprint, body, suffix, answer_time)"

    /// Inserts the rows of `source` (columns ``appendedRow``) with versions `b.base + r.ord`, where
    /// `b` is the row of `bases` (columns `store`, `base`: the store's head before the append) of
    /// the row's store, and an answer whose `suffix` is not NULL with the row's version between
    /// `body` and `suffix` (`{"version":N}`). Rows of a store without a row in `bases` are left
    /// out. Shared by ``createAppendFunction`` and `PostgresLog`'s checked append; a database
    /// keeps the function it was given, so a change here needs a new ``appendFunction`` name too.
    static func insertAppendedRows(from source: String, bases: String) -> String {
        """
        INSERT INTO remvvm_log (store, version, type, payload, time, idempotency_key, answer_status,
                                answer_fingerprint, answer_body, answer_time)
        SELECT r.store, b.base + r.ord, r.type, r.payload::jsonb, r.time, r.key, r.status, r.fingerprint,
               CASE WHEN r.suffix IS NULL THEN r.body
                    ELSE r.body || convert_to((b.base + r.ord)::text, 'UTF8') || r.suffix END,
               r.answer_time
        FROM \(source) JOIN \(bases) b ON b.store = r.store
        """
    }

    /// The doorbell's payload of the heads of `heads` (columns `store`, `head`): `store:head`
    /// pairs separated by spaces (``PostgresLogDoorbell``), or an empty payload (read the heads)
    /// when they are too many for one notification (8,000 bytes).
    static func notifyHeads(_ text: String) -> String {
        "pg_notify('\(channel)', CASE WHEN length(\(text)) <= \(PostgresLogDoorbell.longestPayload) THEN \(text) ELSE '' END)"
    }

    /// Appends the rows (the arrays, one element per action) to their stores and returns the
    /// stores' new heads as the doorbell's payload (`store:head …`, every store appended to);
    /// `stores`, `counts`, `last_times` and `incarnations` name each store of the append once,
    /// with its number of rows, its newest action's time and the incarnation its rows are meant
    /// for (NULL: any). A store whose head row is of another incarnation (deleted and created
    /// again since the appending replica followed it) is left out, as a missing one is: compared
    /// in the statement that raises the heads, no query more.
    ///
    /// The heads' row locks first, in the order of the stores' ids, so that two appends of
    /// overlapping stores never wait for each other crosswise (a deadlock); appends of other
    /// stores take other rows and never wait for these. Then a check that no key of the append is
    /// kept in its store (a command of its own, so it sees every answer committed before the
    /// locks were granted — within one statement it would see only those committed before the
    /// statement began), the heads raised, the rows, the doorbells: on ``recordsChannel`` the
    /// heads, a line feed, the incarnation of each store (`store:token` pairs, the token the
    /// incarnation's first characters: which store the rows are of, ``PostgresLogDoorbell/incarnations``), a line feed and `records` (the rows
    /// as text, written by the appender: ``PostgresLogDoorbell/records(_:heads:)``) when the whole
    /// fits in one notification and the
    /// notification queue is nearly empty (``recordsQueueUsageLimit``), then the
    /// heads alone on ``channel`` (PostgreSQL delivers a transaction's notifications after it
    /// committed, in the order they were sent). A key already kept raises
    /// `unique_violation` (`23505`) and nothing is stored. A store without a head row (deleted,
    /// or never created) is left out: its rows are not stored, and the payload does not name it.
    ///
    /// Which tables the check reads: keys on records are refused by their unique index, so
    /// `remvvm_answers` alone — unless a removal of old records is under way (``removalLock``
    /// is held), which moves keys from records to `remvvm_answers`: an insert waiting on the
    /// index for a record being removed would go on once the removal committed and store the key
    /// twice. Then both tables are read in one snapshot, which shows a moving key on one side.
    /// The check is planned at every call (`EXECUTE`): a plan cached for the session, made while
    /// `remvvm_answers` was nearly empty, scanned the whole table as it grew.
    ///
    /// Head rows are found through their primary key only (`enable_seqscan` off inside the
    /// function, and the raise restricted to `store = ANY(stores)`, which the index answers):
    /// `remvvm_head` fits in a few pages, so PostgreSQL's costs preferred reading every head row
    /// and comparing each with every store of the call — with 1,000 stores, two scans of 1,000
    /// rows per append and a quarter of PostgreSQL's CPU (`docs/benchmarks.md`, 2026-11-28 night),
    /// where the append touches the ~20 rows of its stores.
    static let createAppendFunction = """
        CREATE FUNCTION \(appendFunction)(
                stores text[], counts bigint[], last_times bigint[], incarnations text[],
                row_stores text[], ords bigint[], types text[], payloads text[], times bigint[], keys text[],
                statuses integer[], fingerprints bytea[], bodies bytea[], suffixes bytea[], answer_times bigint[],
                records text
            ) RETURNS text LANGUAGE plpgsql SET enable_seqscan = off AS $append$
            DECLARE
                kept boolean;
                heads text;
                incarnated text;
            BEGIN
                PERFORM 1 FROM remvvm_head h WHERE h.store = ANY(stores) ORDER BY h.store FOR UPDATE;
                IF EXISTS (SELECT 1 FROM unnest(keys) k WHERE k IS NOT NULL) THEN
                    IF pg_try_advisory_xact_lock_shared(\(removalLock)) THEN
                        EXECUTE 'SELECT EXISTS (SELECT 1 FROM remvvm_answers a JOIN unnest($1, $2) k(store, key)
                                                ON a.store = k.store AND a.idempotency_key = k.key)'
                            INTO kept USING row_stores, keys;
                    ELSE
                        EXECUTE 'SELECT EXISTS (SELECT 1 FROM remvvm_answers a JOIN unnest($1, $2) k(store, key)
                                                ON a.store = k.store AND a.idempotency_key = k.key)
                                     OR EXISTS (SELECT 1 FROM remvvm_log l JOIN unnest($1, $2) k(store, key)
                                                ON l.store = k.store AND l.idempotency_key = k.key)'
                            INTO kept USING row_stores, keys;
                    END IF;
                    IF kept THEN
                        RAISE unique_violation USING MESSAGE = 'an idempotency key of the append is kept already';
                    END IF;
                END IF;
                WITH bumped AS (
                    UPDATE remvvm_head h SET version = h.version + c.n, last_action_at = greatest(h.last_action_at, c.last)
                    FROM unnest(stores, counts, last_times, incarnations) AS c(store, n, last, incarnation)
                    WHERE h.store = c.store AND h.store = ANY(stores) AND (c.incarnation IS NULL OR h.incarnation = c.incarnation)
                    RETURNING h.store, h.version - c.n AS base, h.version AS head, h.incarnation
                ),
                inserted AS (
                    \(insertAppendedRows(
                        from: "unnest(row_stores, ords, types, payloads, times, keys, statuses, fingerprints, bodies, suffixes, answer_times) AS \(appendedRow)",
                        bases: "bumped"
                    ))
                )
                SELECT string_agg(b.store || ':' || b.head, ' '), string_agg(b.store || ':' || left(b.incarnation, \(PostgresLogDoorbell.incarnationTokenLength)), ' ')
                    INTO heads, incarnated FROM bumped b;
                IF heads IS NOT NULL THEN
                    IF octet_length(heads) + 1 + octet_length(incarnated) + 1 + octet_length(records) <= \(PostgresLogDoorbell.longestPayload)
                       AND pg_notification_queue_usage() < \(recordsQueueUsageLimit) THEN
                        PERFORM pg_notify('\(recordsChannel)', heads || E'\\n' || incarnated || E'\\n' || records);
                    END IF;
                    PERFORM \(notifyHeads("heads"));
                END IF;
                RETURN coalesce(heads, '');
            END
            $append$;
        """
}
