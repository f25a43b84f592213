/// The doorbell of the shared log: a connection that `LISTEN`s on the log's channel.
///
/// NOTIFY is a wake-up only: it is not replayed after a reconnect and may be coalesced, so the
/// reader always re-reads `version > applied` after ``wait(upTo:)`` returns, whatever it says.
/// Not `Sendable`: one thread (the follower's) owns it.
public final class PostgresLogListener {
    private let connection: PostgresConnection
    private var listening = false

    /// Connects to `conninfo` and starts listening.
    public init(conninfo: String) throws(PostgresLogError) {
        connection = try PostgresConnection(conninfo: conninfo)
        try connection.listen(PostgresLogSchema.channel)
        listening = true
    }

    /// Waits up to `timeout` for the doorbell. Returns true when it rang, or when the connection
    /// was re-established (notifications sent meanwhile are lost: read the log again); false on
    /// timeout. Throws ``PostgresLogError/Code/unavailable`` while PostgreSQL cannot be reached.
    public func wait(upTo timeout: Duration) throws(PostgresLogError) -> Bool {
        if !listening || !connection.isConnected {
            listening = false
            try connection.connect()
            try connection.listen(PostgresLogSchema.channel)
            listening = true
            return true
        }
        do {
            return try !connection.notifications(waitingUpTo: timeout).isEmpty
        } catch {
            listening = false
            throw error
        }
    }

    /// Closes the connection.
    public func close() {
        connection.close()
    }
}
