/// Hears that a journal's versions are durable: what a store's commit gate is to its
/// ``GroupCommitJournal`` (added with its `onDurable`). An object rather than a closure: over many
/// stores a commit reaches each store's listener without a closure context or an array of its own
/// to read first (`docs/benchmarks.md`, 2026-12-01).
public protocol JournalDurabilityListener: AnyObject, Sendable {
    /// Called on the committing thread after every commit that held the journal's records, with
    /// the newest durable version; commits and their listeners never overlap.
    func journalDidCommit(through version: UInt64)
}
