import Journal

/// Why the shared log could not be opened, read or written. The message says what PostgreSQL
/// answered and what the server does next.
public struct PostgresLogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// A sentence naming the statement or the row, and PostgreSQL's own message.
    public let message: String
    /// PostgreSQL's SQLSTATE, when it sent one (`"23505"` for a unique violation).
    public let sqlState: String?

    /// Creates an error.
    public init(code: Code, message: String, sqlState: String? = nil) {
        (self.code, self.message, self.sqlState) = (code, message, sqlState)
    }

    /// The error of a store that does not exist (any more).
    static func storeNotFound(_ store: StoreID) -> PostgresLogError {
        PostgresLogError(code: .storeNotFound, message: "the store \(store) does not exist in the shared log (never created, or deleted)")
    }

    /// The message.
    public var description: String { message }

    /// Whether PostgreSQL refused the data itself (SQLSTATE class 22, data exception, or 54000,
    /// a program limit such as a value too large): the statement failed and stored nothing, and
    /// the same data would fail again, whatever the connection.
    public var isDataRefusal: Bool {
        guard code == .queryFailed, let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState == "54000"
    }

    /// Whether the connection broke (``Code/unavailable``, ``Code/commitOutcomeUnknown``): the next
    /// statement needs a new one.
    public var breaksTheConnection: Bool {
        code == .unavailable || code == .commitOutcomeUnknown
    }
}

extension PostgresLogError {
    /// What kind of failure it is, for the code that decides what to do (retry, answer 503, stop).
    public enum Code: Sendable, Equatable {
        /// PostgreSQL cannot be reached, or the connection broke: retry later (nothing of a write
        /// that failed before its commit is stored).
        case unavailable
        /// The connection broke while `COMMIT` was on its way: the group may or may not be stored.
        /// Read the log (or look up the group's idempotency key) to learn which.
        case commitOutcomeUnknown
        /// The database holds a log of another schema version: this build refuses to use it.
        case incompatibleSchema
        /// `If-Match`: the head was not the version the group expected; nothing was stored.
        case headMoved
        /// A statement failed for another reason (constraint, syntax, permissions).
        case queryFailed
        /// A row cannot be decoded (not a number where one is expected, a gap in versions).
        case corrupt
        /// The log was closed.
        case closed
        /// The store has no head row: it was never created, or it was deleted.
        case storeNotFound
    }
}
