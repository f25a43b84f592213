import ConcurrencyKit

/// Copies the write-ahead log back into the database file on a thread of its own, so that the
/// journal thread never does it inside a commit.
///
/// SQLite's automatic checkpoint runs in the connection that commits, once the log passes 1,000
/// pages: that commit then also writes those pages to the database file and, with
/// `synchronous=FULL`, fsyncs it — a stall of milliseconds for every request waiting on the
/// commit. The writer turns it off (`wal_autocheckpoint=0`) and asks this thread instead, which
/// runs `PASSIVE` checkpoints on its own connection: they never block the writer, and the writer
/// starts the log over once a checkpoint has caught up.
///
/// While commits keep coming, a checkpoint never catches up by itself: the writer adds frames
/// while it copies. So after each one the writer is asked to finish it (``takeCatchUp()``): its
/// own checkpoint then copies only the frames committed meanwhile, and its next transaction
/// starts the log over, writing over the file's existing blocks instead of at its end, where
/// every fsync must also write the file's new size.
final class WALCheckpointer: Sendable {
    private struct State {
        var requested = false
        var catchUpDue = false
        var stopping = false
        var completed: UInt64 = 0
        var lastError: String?
    }

    private let connection: Lock<SQLiteDatabase?>
    private let state = Lock(State())
    private let worker = Worker(named: "wal-checkpoint")
    /// Hears when checkpoints start failing (the error) and when one succeeds again (nil).
    private let problemHandler = Lock<(@Sendable (String?) -> Void)?>(nil)

    /// Calls `handler` with the error when checkpoints start failing, and with nil when one
    /// succeeds again: while they fail the write-ahead log grows and is never started over.
    func onProblem(_ handler: @escaping @Sendable (String?) -> Void) {
        problemHandler.withLock { $0 = handler }
    }

    /// Opens its own connection to `path`.
    init(path: String) throws(SQLiteError) {
        let database = try SQLiteDatabase(path: path, create: false)
        try database.execute("PRAGMA busy_timeout=1000")
        connection = Lock(database)
    }

    /// Starts the thread; false if the system refused it (checkpoints then never run in the
    /// background, and the writer's log grows until close).
    func start() -> Bool {
        do {
            try worker.start { [self] _ in run() }
            return true
        } catch {
            return false
        }
    }

    /// Asks for a checkpoint soon; cheap, any thread.
    func request() {
        let wake = state.withLock { state -> Bool in
            guard !state.requested else { return false }
            state.requested = true
            return true
        }
        if wake { state.notifyAll() }
    }

    /// Asks for a checkpoint and waits until one that started after this call has run; false
    /// after `timeout`. For tests.
    func checkpointNow(timeout: Duration) -> Bool {
        let before = completed
        request()
        // The checkpoint under way (if any) may have started before this call: wait for the next.
        guard state.wait(timeout: timeout, until: { $0.completed > before }) else { return false }
        request()
        return state.wait(timeout: timeout) { $0.completed > before + 1 }
    }

    /// True once after each completed checkpoint: the writer should then run a checkpoint of its
    /// own before its next transaction (see the type's documentation).
    func takeCatchUp() -> Bool {
        state.withLock { state in
            defer { state.catchUpDue = false }
            return state.catchUpDue
        }
    }

    /// Asks the writer again to finish a checkpoint (after its own attempt found another one
    /// under way).
    func catchUpAgain() {
        state.withLock { $0.catchUpDue = true }
    }

    /// Runs `body` on the checkpointer's own connection (for tests: a transaction left open on
    /// it makes its checkpoints fail).
    func withConnection(_ body: (SQLiteDatabase) throws(SQLiteError) -> Void) throws(SQLiteError) {
        try connection.withLock { database throws(SQLiteError) in
            if let database { try body(database) }
        }
    }

    /// Checkpoints that ran to completion so far.
    var completed: UInt64 {
        state.withLock { $0.completed }
    }

    /// Stops the thread and closes its connection. Idempotent. A thread that has not stopped
    /// after 30 s (a checkpoint stuck in I/O) is reported to the problem handler; the connection
    /// closes once that checkpoint returns.
    func stop() {
        state.withLock { $0.stopping = true }
        state.notifyAll()
        do {
            try worker.stop(timeout: .seconds(30))
        } catch {
            problemHandler.withLock { $0 }?("\(error)")
        }
        connection.withLock { $0 = nil }
    }

    private func run() {
        while true {
            let stopping = state.withLock(waitingUntil: { $0.requested || $0.stopping }) { state -> Bool in
                state.requested = false
                return state.stopping
            }
            if stopping { break }
            let outcome: String? = connection.withLock { database in
                guard let database else { return nil }
                do throws(SQLiteError) {
                    try database.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            let changed = state.withLock { state -> Bool in
                defer { state.lastError = outcome }
                if outcome == nil {
                    state.completed += 1
                    state.catchUpDue = true
                }
                return (state.lastError == nil) != (outcome == nil)
            }
            state.notifyAll()
            if changed, let handler = problemHandler.withLock({ $0 }) {
                handler(outcome)
            }
        }
    }
}
