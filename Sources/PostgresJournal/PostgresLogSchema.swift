/// The shared log's tables, created on first start and versioned: a database holding another
/// schema version is refused (never migrated silently).
enum PostgresLogSchema {
    /// The version this build reads and writes.
    static let version = 1

    /// The channel NOTIFY rings after every append (the payload is the new head, a doorbell only).
    static let channel = "remvvm_log"

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
        INSERT INTO remvvm_head (only_row, version) VALUES (true, 0) ON CONFLICT DO NOTHING;
        INSERT INTO remvvm_meta (key, value) VALUES ('schema', '\(version)') ON CONFLICT DO NOTHING;
        """
}
