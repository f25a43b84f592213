/// The shared log's tables, created on first start and versioned: a database holding a newer
/// schema version is refused (never migrated silently); one of version 1 (one store) is upgraded
/// in place (``PostgresLogSchema/upgradeFromVersion1``).
///
/// Every table is keyed by store (``Journal/StoreID``): `remvvm_head` holds one row per store —
/// its head version (the row appends lock), its incarnation, creation time and last action time,
/// and so is the catalog of stores —, `remvvm_log` the records by `(store, version)`,
/// `remvvm_answers` the answers kept without actions by `(store, idempotency_key)`,
/// `remvvm_replicas` the replicas' snapshot registrations by `(store, name)`. The `store` columns
/// default to `default`, so rows written without one (a tool, a script) belong to the store of
/// the root routes.
enum PostgresLogSchema {
    /// The version this build reads and writes (1: one store, an only head row).
    static let version = 2

    /// The channel NOTIFY rings after every append: the payload names the stores appended to and
    /// their new heads (``PostgresLogDoorbell``), a doorbell only.
    static let channel = "remvvm_log"

    /// The channel an append rings first with its rows themselves, when they fit in one
    /// notification (``PostgresLogDoorbell/records(_:heads:)``): a follower that hears them applies
    /// them without reading them back. Its own channel, so that builds that only know
    /// ``channel`` hear the same doorbell as before.
    static let recordsChannel = "remvvm_log_records"

    /// The advisory lock that a removal of old records holds exclusively for each of its
    /// transactions, and that each call of ``appendFunction`` tries to take shared: a call that
    /// gets it knows that no removal is moving keys until it commits.
    static let removalLock = 7_206_400_115

    /// The advisory lock the schema script holds (replicas starting together do not race).
    static let schemaLock = 7_206_400_114

    /// The advisory lock a creation or deletion of a store holds, so that the count of stores it
    /// checks against the limit stays true until it commits, across replicas.
    static let catalogLock = 7_206_400_116

    /// The `store` column of every table: ids compared by their bytes (`COLLATE "C"`), the order
    /// listings use (``Journal/StoreID/<(_:_:)``).
    static let storeColumn = #"store text COLLATE "C" NOT NULL DEFAULT 'default'"#

    /// Creates the tables of a database without any (inside the schema transaction).
    static let create = """
        \(createHead)
        CREATE TABLE remvvm_log (
            version bigint NOT NULL,
            type text NOT NULL,
            payload jsonb,
            time bigint NOT NULL,
            idempotency_key text,
            answer_status integer,
            answer_fingerprint bytea,
            answer_body bytea,
            answer_time bigint,
            \(storeColumn),
            CONSTRAINT remvvm_log_pkey PRIMARY KEY (store, version),
            CONSTRAINT remvvm_log_store_idempotency_key_key UNIQUE (store, idempotency_key)
        );
        CREATE INDEX remvvm_log_answer_time ON remvvm_log (answer_time) WHERE idempotency_key IS NOT NULL;
        CREATE TABLE remvvm_answers (
            idempotency_key text NOT NULL,
            answer_status integer NOT NULL,
            answer_fingerprint bytea NOT NULL,
            answer_body bytea NOT NULL,
            answer_time bigint NOT NULL,
            \(storeColumn),
            CONSTRAINT remvvm_answers_pkey PRIMARY KEY (store, idempotency_key)
        );
        CREATE INDEX remvvm_answers_time ON remvvm_answers (answer_time);
        CREATE TABLE remvvm_replicas (
            name text NOT NULL,
            snapshot_version bigint NOT NULL,
            registered_at timestamptz NOT NULL,
            instance text,
            \(storeColumn),
            CONSTRAINT remvvm_replicas_pkey PRIMARY KEY (store, name)
        );
        INSERT INTO remvvm_meta (key, value) VALUES ('log', gen_random_uuid()::text);
        INSERT INTO remvvm_head (store, version, incarnation, created_at)
            SELECT 'default', 0, value, \(nowMilliseconds) FROM remvvm_meta WHERE key = 'log';
        INSERT INTO remvvm_meta (key, value) VALUES ('schema', '\(version)');
        """

    /// The head rows, one per store: the version appends lock and raise, the incarnation (made
    /// anew at each creation; the `default` store's is the log's identity), when the store was
    /// created and when its newest action was recorded (milliseconds since 1970).
    static let createHead = """
        CREATE TABLE remvvm_head (
            \(storeColumn) PRIMARY KEY,
            version bigint NOT NULL,
            incarnation text NOT NULL,
            created_at bigint NOT NULL,
            last_action_at bigint
        );
        """

    /// Milliseconds since 1970 by PostgreSQL's clock, in SQL.
    static let nowMilliseconds = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// What every start runs after the tables exist (idempotent): the append function of this
    /// build, created beside those of other builds.
    static let ensureFunctions = """
        DO $$ BEGIN
            IF to_regprocedure('\(appendFunction)(\(appendFunctionArguments))') IS NULL THEN
                \(createAppendFunction)
            END IF;
        END $$;
        """
}
