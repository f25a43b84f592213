import ConcurrencyKit

/// The doorbell of the shared log: a connection that `LISTEN`s on the log's channels (the heads,
/// and the rows of appends that fit in a notification).
///
/// NOTIFY is a wake-up only: it is not replayed after a reconnect and may be coalesced, so the
/// reader re-reads `version > applied` whenever ``wait(upTo:wakeDescriptor:)`` does not prove
/// there is nothing new (a doorbell announcing a head already applied).
/// Not `Sendable`: one thread (the follower's) owns it.
public final class PostgresLogListener {
    private let connection: PostgresConnection
    private var listening = false
    /// The heads of the last records doorbell: the heads doorbell of the same append repeats them.
    private var lastRecordsHeads: Substring?

    /// Connects to `conninfo` and starts listening.
    public init(conninfo: String) throws(PostgresLogError) {
        connection = try PostgresConnection(conninfo: conninfo)
        try listenOnEveryChannel()
        listening = true
    }

    /// What ended a ``wait(upTo:wakeDescriptor:)``.
    public enum Wake: Sendable, Equatable {
        /// The doorbell rang: what the notifications received together announced.
        case rang(PostgresLogDoorbell)
        /// The connection was re-established: notifications sent meanwhile are lost, read the log.
        case reconnected
        /// The wake descriptor became readable (another thread has something for the waiter).
        case woken
        /// Nothing happened within the timeout.
        case timedOut
    }

    /// Waits up to `timeout` for the doorbell. Throws ``PostgresLogError/Code/unavailable`` while
    /// PostgreSQL cannot be reached.
    public func wait(upTo timeout: Duration) throws(PostgresLogError) -> Wake {
        try wait(upTo: timeout, wakeBell: nil)
    }

    /// Waits up to `timeout` for the doorbell, or for `wakeBell` (rung by another thread that has
    /// something for the waiter; drained here). Throws ``PostgresLogError/Code/unavailable`` while
    /// PostgreSQL cannot be reached.
    func wait(upTo timeout: Duration, wakeBell: Doorbell?) throws(PostgresLogError) -> Wake {
        if !listening || !connection.isConnected {
            listening = false
            try connection.connect()
            lastRecordsHeads = nil
            try listenOnEveryChannel()
            listening = true
            return .reconnected
        }
        do {
            let (received, woken) = try connection.notifications(waitingUpTo: timeout, wakeBell: wakeBell)
            if !received.isEmpty {
                return .rang(PostgresLogDoorbell(notifications: received, lastRecordsHeads: &lastRecordsHeads))
            }
            return woken ? .woken : .timedOut
        } catch {
            listening = false
            throw error
        }
    }

    /// `LISTEN` on the rows' channel and the heads'.
    private func listenOnEveryChannel() throws(PostgresLogError) {
        try connection.listen(PostgresLogSchema.recordsChannel)
        try connection.listen(PostgresLogSchema.channel)
    }

    /// Closes the connection.
    public func close() {
        connection.close()
    }
}
