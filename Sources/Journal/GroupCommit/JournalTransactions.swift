/// One store's part of a transaction: what its ``GroupCommitJournal`` takes from its queue.
public struct JournalWrite: Sendable {
    /// The store's storage (a view of a shared database, or a storage of its own).
    public var storage: any JournalStorage
    /// Its records, consecutive versions, oldest first.
    public var records: [JournalRecord]
    /// The answers kept with them.
    public var answers: [KeptAnswer]

    /// Creates a part.
    public init(storage: any JournalStorage, records: [JournalRecord], answers: [KeptAnswer]) {
        self.storage = storage
        self.records = records
        self.answers = answers
    }
}

/// Writes the parts of several stores in one transaction: what a ``JournalCommitter`` commits
/// through. The SQLite journal's database writes all its stores' parts in one SQLite transaction
/// (one sync); ``SeparateJournalTransactions`` writes each part through its own storage.
public protocol JournalTransactions: Sendable {
    /// Writes `parts`. Throws when the transaction failed: nothing of it is stored. Otherwise
    /// returns, for each part in order, nil when it is stored or the error that kept that part
    /// alone out; the other parts are stored. A part refused with ``JournalErrorCode/closed``
    /// (its storage was closed, or its store deleted) can never be stored.
    func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?]
}

/// Each part in a transaction of its own storage (``JournalStorage/append(_:answers:)``): for a
/// committer serving one store, or stores that share no database. Each part succeeds or fails
/// on its own.
public struct SeparateJournalTransactions: JournalTransactions {
    /// Creates the writer.
    public init() {}

    /// Appends each part to its storage, in order; never throws (a failure is its part's).
    public func write(_ parts: [JournalWrite]) throws(JournalError) -> [JournalError?] {
        parts.map { part -> JournalError? in
            do throws(JournalError) {
                try part.storage.append(part.records, answers: part.answers)
                return nil
            } catch {
                return error
            }
        }
    }
}
