/// The shared log's tables, created on first start and versioned: a database holding another
/// schema version is refused (never migrated silently).
enum PostgresLogSchema {
    /// The version this build reads and writes.
    static let version = 1

    /// The channel NOTIFY rings after every append (the payload is the new head, a doorbell only).
    static let channel = "remvvm_log"

    /// The advisory lock that a removal of old records holds exclusively for each of its
    /// transactions, and that each call of ``appendFunction`` tries to take shared: a call that
    /// gets it knows that no removal is moving keys until it commits.
    static let removalLock = 7_206_400_115

    /// The function that appends groups without `If-Match` in one call (``PostgresLog``): its
    /// name carries its version, so a build that needs another one creates it beside this one.
    /// (`remvvm_append_v1`, of earlier builds, checked `remvvm_answers` through a plan cached
    /// while that table was small — a sequential scan that grew with it.)
    static let appendFunction = "remvvm_append_v2"

    /// The argument types of ``appendFunction``, as `to_regprocedure` names them.
    static let appendFunctionArguments =
        "bigint, bigint[], text[], text[], bigint[], text[], integer[], bytea[], bytea[], bytea[], bigint[]"

    /// The columns of one row to append, as both appends unnest them from their array arguments.
    static let appendedRow = "r(ord, type, payload, time, key, status, fingerprint, body, suffix, answer_time)"

    /// Inserts the rows of `source` (columns ``appendedRow``) with versions `base + ord`, and an
    /// answer whose `suffix` is not NULL with the row's version between `body` and `suffix`
    /// (`{"version":N}`). Shared by ``createAppendFunction`` and `PostgresLog`'s statement for
    /// groups without keys; a database keeps the function it was given, so a change here needs a
    /// new ``appendFunction`` name too.
    static func insertAppendedRows(base: String, from source: String) -> String {
        """
        INSERT INTO remvvm_log (version, type, payload, time, idempotency_key, answer_status,
                                answer_fingerprint, answer_body, answer_time)
        SELECT \(base) + r.ord, r.type, r.payload::jsonb, r.time, r.key, r.status, r.fingerprint,
               CASE WHEN r.suffix IS NULL THEN r.body
                    ELSE r.body || convert_to((\(base) + r.ord)::text, 'UTF8') || r.suffix END,
               r.answer_time
        FROM \(source)
        """
    }

    /// Appends `n` actions (the arrays, one element per action; `ords` 1…n) after the head and
    /// returns the new head: the head's row lock first, then a check that no key of the append is
    /// kept (a command of its own, so it sees every answer committed before the lock was granted
    /// — within one statement it would see only those committed before the statement began), the
    /// rows, the doorbell. A key already kept raises `unique_violation` (`23505`) and nothing is
    /// stored. An answer whose `suffix` is not NULL gets the row's version between `body` and
    /// `suffix` (`{"version":N}`).
    ///
    /// Which tables the check reads: keys on records are refused by their unique index, so
    /// `remvvm_answers` alone — unless a removal of old records is under way (``removalLock``
    /// is held), which moves keys from records to `remvvm_answers`: an insert waiting on the
    /// index for a record being removed would go on once the removal committed and store the key
    /// twice. Then both tables are read in one snapshot, which shows a moving key on one side.
    ///
    /// The check is planned at every call (`EXECUTE`): PL/pgSQL caches a statement's plan for
    /// the session, and `remvvm_append_v1`'s, made while `remvvm_answers` was nearly empty,
    /// scanned the whole table as it grew (15.5 ms per append once retention had moved some
    /// 20,000 answers there). Planned per call: 49 µs for ten keys, against 103 µs with the
    /// records' table too (measured in a PL/pgSQL loop on this machine).
    static let createAppendFunction = """
        CREATE FUNCTION \(appendFunction)(
                n bigint, ords bigint[], types text[], payloads text[], times bigint[], keys text[],
                statuses integer[], fingerprints bytea[], bodies bytea[], suffixes bytea[], answer_times bigint[]
            ) RETURNS bigint LANGUAGE plpgsql AS $append$
            DECLARE
                new_head bigint;
                kept boolean;
            BEGIN
                UPDATE remvvm_head SET version = version + n RETURNING version INTO new_head;
                IF pg_try_advisory_xact_lock_shared(\(removalLock)) THEN
                    EXECUTE 'SELECT EXISTS (SELECT 1 FROM remvvm_answers WHERE idempotency_key = ANY($1))'
                        INTO kept USING keys;
                ELSE
                    EXECUTE 'SELECT EXISTS (SELECT 1 FROM remvvm_answers WHERE idempotency_key = ANY($1))
                                 OR EXISTS (SELECT 1 FROM remvvm_log WHERE idempotency_key = ANY($1))'
                        INTO kept USING keys;
                END IF;
                IF kept THEN
                    RAISE unique_violation USING MESSAGE = 'an idempotency key of the append is kept already';
                END IF;
                \(insertAppendedRows(
                    base: "new_head - n",
                    from: "unnest(ords, types, payloads, times, keys, statuses, fingerprints, bodies, suffixes, answer_times) AS \(appendedRow)"
                ));
                PERFORM pg_notify('\(channel)', new_head::text);
                RETURN new_head;
            END
            $append$;
        """

    /// Creates what is missing, under a transaction-level advisory lock so that replicas starting
    /// together do not race.
    static let create = """
        CREATE TABLE IF NOT EXISTS remvvm_meta (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE IF NOT EXISTS remvvm_head (
            only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
            version bigint NOT NULL
        );
        CREATE TABLE IF NOT EXISTS remvvm_log (
            version bigint PRIMARY KEY,
            type text NOT NULL,
            payload jsonb,
            time bigint NOT NULL,
            idempotency_key text UNIQUE,
            answer_status integer,
            answer_fingerprint bytea,
            answer_body bytea,
            answer_time bigint
        );
        DO $$ BEGIN
            -- Looked up first: CREATE INDEX IF NOT EXISTS would lock the log against appends at
            -- every start, even when the index exists.
            IF to_regclass('remvvm_log_answer_time') IS NULL THEN
                CREATE INDEX remvvm_log_answer_time ON remvvm_log (answer_time) WHERE idempotency_key IS NOT NULL;
            END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS remvvm_answers (
            idempotency_key text PRIMARY KEY,
            answer_status integer NOT NULL,
            answer_fingerprint bytea NOT NULL,
            answer_body bytea NOT NULL,
            answer_time bigint NOT NULL
        );
        DO $$ BEGIN
            IF to_regclass('remvvm_answers_time') IS NULL THEN
                CREATE INDEX remvvm_answers_time ON remvvm_answers (answer_time);
            END IF;
            IF to_regprocedure('\(appendFunction)(\(appendFunctionArguments))') IS NULL THEN
                \(createAppendFunction)
            END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS remvvm_replicas (
            name text PRIMARY KEY,
            snapshot_version bigint NOT NULL,
            registered_at timestamptz NOT NULL
        );
        DO $$ BEGIN
            -- Added after the table (additive: builds that do not know it leave it alone); looked
            -- up first, since ALTER TABLE locks the table even when the column exists.
            IF NOT EXISTS (
                SELECT 1 FROM pg_attribute
                WHERE attrelid = 'remvvm_replicas'::regclass AND attname = 'instance' AND NOT attisdropped
            ) THEN
                ALTER TABLE remvvm_replicas ADD COLUMN instance text;
            END IF;
        END $$;
        INSERT INTO remvvm_head (only_row, version) VALUES (true, 0) ON CONFLICT DO NOTHING;
        INSERT INTO remvvm_meta (key, value) VALUES ('schema', '\(version)') ON CONFLICT DO NOTHING;
        -- The log's identity, made once (additive: a log of an earlier build gets it at the first
        -- start of this one): a replica's snapshots name the log they belong to.
        INSERT INTO remvvm_meta (key, value) VALUES ('log', gen_random_uuid()::text) ON CONFLICT DO NOTHING;
        """
}
