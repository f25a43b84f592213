/// The settings of a log's connection that last for its life (made again after a reconnect):
/// how its statements are planned, which access paths they may use, how long they may run.
extension PostgresLog {
    /// Plans every statement of this connection for its parameters at each execution, instead
    /// of caching a generic plan after five: a plan cached while the log was small (a sequential
    /// scan of a few pages) would go on scanning the whole log as it grows, since nothing
    /// re-plans it until the table is next analyzed. Measured on the keyed lookups of
    /// ``answers(forKeys:)``: 12 ms per query of about 9 keys, against 8 µs per key before.
    /// Kept across reconnects.
    public func planEachExecution() throws(PostgresLogError) {
        try ensureOpen()
        try connection.keepSetting("SET plan_cache_mode = force_custom_plan")
    }

    /// Plans each statement of this connection once, for any parameters, and finds rows only
    /// through indexes — for a connection whose every read is by key (a follower's: head rows by
    /// store, records by store and version). Its read of many stores' new records
    /// (``entries(after:)-([StoreID:(version:limit:)])``) was planned anew at every execution, a
    /// tenth of PostgreSQL's CPU with 1,000 stores, since a plan for the stores of the call looked
    /// cheaper than a generic one; and a generic plan made while the log was small could scan
    /// the whole log (the risk ``planEachExecution()`` avoids), which `enable_seqscan = off`
    /// rules out. Kept across reconnects.
    public func planOnceThroughIndexes() throws(PostgresLogError) {
        try findRowsThroughIndexes()
        try connection.keepSetting("SET plan_cache_mode = force_generic_plan")
    }

    /// Finds rows only through indexes (`enable_seqscan = off`), for a connection whose every
    /// statement addresses rows by key (an appender's: head rows by store, keys by store and
    /// key). `remvvm_head` fits in a few pages, so PostgreSQL's costs preferred reading every head
    /// row to looking up the ~20 an append locks and raises: with 1,000 stores, two scans of
    /// 1,000 rows per append. Kept across reconnects.
    public func findRowsThroughIndexes() throws(PostgresLogError) {
        try ensureOpen()
        try connection.keepSetting("SET enable_seqscan = off")
    }

    /// Cancels every later statement of this connection that runs (or waits for a lock) longer
    /// than `timeout` (PostgreSQL's `statement_timeout`), also after a reconnect.
    public func limitStatements(to timeout: Duration) throws(PostgresLogError) {
        try ensureOpen()
        try connection.keepSetting("SET statement_timeout = \(max(1, timeout.wholeMilliseconds))")
    }
}
