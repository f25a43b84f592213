import Journal
import Testing

/// An `increase` record at `version` with an empty payload, timed a fixed instant plus the version.
func record(_ version: UInt64) -> JournalRecord {
    JournalRecord(version: version, type: "increase", payload: [], time: 1_700_000_000_000 + Int64(version))
}

/// A journal over `storage` (a new ``MemoryJournalStorage`` unless given), with `onDurable` as its
/// listener when given (listeners go in before the start), started; the test stops it.
func startedJournal(
    over storage: MemoryJournalStorage = MemoryJournalStorage(),
    lastVersion: UInt64 = 0,
    policy: CommitPolicy = CommitPolicy(),
    clock: any JournalClock = SystemJournalClock(),
    onDurable: (@Sendable (UInt64) -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (storage: MemoryJournalStorage, journal: GroupCommitJournal) {
    let journal = GroupCommitJournal(storage: storage, lastVersion: lastVersion, policy: policy, clock: clock)
    if let onDurable { journal.onDurable(onDurable) }
    try #require(journal.start(), "the journal starts", sourceLocation: sourceLocation)
    return (storage, journal)
}
