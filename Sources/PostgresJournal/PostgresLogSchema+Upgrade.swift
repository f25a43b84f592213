extension PostgresLogSchema {
    /// Upgrades a log of schema version 1 (one store: an only head row, records keyed by version,
    /// idempotency keys unique in the whole log) in place to this version, inside the schema
    /// transaction: every row becomes the store `default`'s, keys become unique per store, the
    /// head row becomes `default`'s head row with the log's identity as its incarnation (so the
    /// snapshots replicas made of it stay valid), and the append functions of version 1 go
    /// (builds of version 1 refuse this schema). First, what early builds of version 1 lacked is
    /// added, as those builds' starts did.
    ///
    /// The primary keys are rebuilt (a pass over each table, under its lock): a log of a million
    /// records takes seconds, once.
    static let upgradeFromVersion1 = """
        CREATE TABLE IF NOT EXISTS remvvm_answers (
            idempotency_key text PRIMARY KEY,
            answer_status integer NOT NULL,
            answer_fingerprint bytea NOT NULL,
            answer_body bytea NOT NULL,
            answer_time bigint NOT NULL
        );
        CREATE TABLE IF NOT EXISTS remvvm_replicas (
            name text PRIMARY KEY,
            snapshot_version bigint NOT NULL,
            registered_at timestamptz NOT NULL
        );
        ALTER TABLE remvvm_replicas ADD COLUMN IF NOT EXISTS instance text;
        INSERT INTO remvvm_meta (key, value) VALUES ('log', gen_random_uuid()::text) ON CONFLICT DO NOTHING;
        DROP FUNCTION IF EXISTS remvvm_append_v1;
        DROP FUNCTION IF EXISTS remvvm_append_v2;

        ALTER TABLE remvvm_log ADD COLUMN \(storeColumn),
            DROP CONSTRAINT remvvm_log_pkey,
            DROP CONSTRAINT IF EXISTS remvvm_log_idempotency_key_key,
            ADD CONSTRAINT remvvm_log_pkey PRIMARY KEY (store, version),
            ADD CONSTRAINT remvvm_log_store_idempotency_key_key UNIQUE (store, idempotency_key);
        CREATE INDEX IF NOT EXISTS remvvm_log_answer_time ON remvvm_log (answer_time) WHERE idempotency_key IS NOT NULL;
        ALTER TABLE remvvm_answers ADD COLUMN \(storeColumn),
            DROP CONSTRAINT remvvm_answers_pkey,
            ADD CONSTRAINT remvvm_answers_pkey PRIMARY KEY (store, idempotency_key);
        CREATE INDEX IF NOT EXISTS remvvm_answers_time ON remvvm_answers (answer_time);
        ALTER TABLE remvvm_replicas ADD COLUMN \(storeColumn),
            DROP CONSTRAINT remvvm_replicas_pkey,
            ADD CONSTRAINT remvvm_replicas_pkey PRIMARY KEY (store, name);

        ALTER TABLE remvvm_head RENAME TO remvvm_head_v1;
        ALTER INDEX remvvm_head_pkey RENAME TO remvvm_head_v1_pkey;
        \(createHead)
        INSERT INTO remvvm_head (store, version, incarnation, created_at, last_action_at)
            SELECT 'default', h.version, m.value, \(nowMilliseconds),
                   (SELECT time FROM remvvm_log WHERE store = 'default' ORDER BY version DESC LIMIT 1)
            FROM remvvm_head_v1 h, remvvm_meta m WHERE m.key = 'log';
        DROP TABLE remvvm_head_v1;
        UPDATE remvvm_meta SET value = '\(version)' WHERE key = 'schema';
        """
}
