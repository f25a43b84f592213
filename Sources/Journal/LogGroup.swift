/// One action to append to the shared log; the log assigns its version.
public struct LoggedAction: Sendable, Equatable {
    /// The action's wire name (`"increase"`).
    public var type: String
    /// The action's payload as JSON (an object), or empty for an action without one.
    public var payload: [UInt8]
    /// When it was received, in milliseconds since 1970-01-01 UTC.
    public var time: Int64

    /// Creates an action to append.
    public init(type: String, payload: [UInt8], time: Int64) {
        self.type = type
        self.payload = payload
        self.time = time
    }
}

/// The actions of one request, appended with consecutive versions in one transaction (never
/// split), with the answer kept for its `Idempotency-Key` on the group's last row. A group
/// without actions keeps only its answer: a request that appended nothing (`202`, or a `422` of
/// its first action) is answered the same way when retried.
public struct LogGroup: Sendable, Equatable {
    /// The actions, oldest first; empty for a group that only keeps ``answer``.
    public var actions: [LoggedAction]
    /// The answer to keep for the request's idempotency key, if it had one.
    public var answer: KeptAnswer?
    /// Where the log writes the group's last version (in decimal) into ``answer``'s body, as a
    /// byte offset: an answer such as `{"version":N}` names a version only the log assigns. Nil:
    /// the body is kept as it is.
    public var answerVersionOffset: Int?
    /// `If-Match`: the heads the group accepts before its first action (any one of them); nil
    /// accepts any. Checked under the head's row lock, so it is globally correct across replicas.
    public var expectedHeads: Set<UInt64>?

    /// Creates a group.
    public init(
        actions: [LoggedAction], answer: KeptAnswer? = nil, answerVersionOffset: Int? = nil,
        expectedHeads: Set<UInt64>? = nil
    ) {
        self.actions = actions
        self.answer = answer
        self.answerVersionOffset = answerVersionOffset
        self.expectedHeads = expectedHeads
    }

    /// Creates a group that accepts only `expectedHead` (nil: any).
    public init(actions: [LoggedAction], answer: KeptAnswer? = nil, expectedHead: UInt64?) {
        self.init(actions: actions, answer: answer, expectedHeads: expectedHead.map { [$0] })
    }

    /// Whether the group holds neither actions nor an answer to keep: the log stores nothing of it.
    public var isEmpty: Bool {
        actions.isEmpty && answer == nil
    }

    /// ``answer`` as kept once the group's last version is `version`.
    public func answer(lastVersion version: UInt64) -> KeptAnswer? {
        guard var answer else { return nil }
        if let offset = answerVersionOffset, offset >= 0, offset <= answer.body.count {
            answer.body.insert(contentsOf: Array(String(version).utf8), at: offset)
        }
        return answer
    }
}

/// What became of one group of an append.
public enum LogGroupOutcome: Sendable, Equatable {
    /// Stored with these versions.
    case appended(ClosedRange<UInt64>)
    /// A group without actions: its answer is kept for its key (no version was used).
    case kept
    /// Refused by its `If-Match`: the head was `head`, not the expected one. Nothing of it stored.
    case headMoved(head: UInt64)
    /// Refused: the log already holds this idempotency key (a retry, possibly received by another
    /// replica); nothing of it stored. Read the kept answer with ``PostgresLog/answer(forKey:)``.
    case duplicateKey(String)
    /// Refused by the log's database: it cannot store this group's data (PostgreSQL's `jsonb`
    /// refuses `\u0000` in a string, for one), with its message. Nothing of it stored; the other
    /// groups of the append are not affected, and a retry of the same data will fail again.
    case unstorable(String)
    /// Refused: the group's store does not exist in the log — never created, or deleted —, or
    /// exists as another incarnation than the one the appending replica serves (deleted and
    /// created again since; its versions and tags are not the new store's). Nothing of it stored.
    case storeNotFound
}

/// One row of the shared log as a replica reads it.
public struct LogEntry: Sendable, Equatable {
    /// The action with the version the log gave it.
    public var record: JournalRecord
    /// The idempotency key of the request that dispatched it, on the last row of its group.
    public var idempotencyKey: String?

    /// Creates an entry.
    public init(record: JournalRecord, idempotencyKey: String?) {
        self.record = record
        self.idempotencyKey = idempotencyKey
    }
}
