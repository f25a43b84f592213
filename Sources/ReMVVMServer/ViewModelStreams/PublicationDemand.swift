import Synchronization

/// Whether a hub wants its store's publications: set while a stream is open or on its way, so
/// that a store nobody follows costs its publisher one atomic load per version — on the journal's
/// commit thread, for every store of a commit that spans many (`docs/journal.md`).
///
/// Held strongly by the publication handler, beside its weak reference to the hub: the load
/// touches this small object only, not the hub. A hub that skipped versions catches up from its
/// source's snapshot as its first stream is queued (``ViewModelHub``).
final class PublicationDemand: Sendable {
    private let wanted = Atomic<Bool>(false)

    /// Whether publications are wanted now.
    var isWanted: Bool { wanted.load(ordering: .acquiring) }

    /// Sets whether publications are wanted (under the hub's inbox lock, with the inbox's own
    /// `listening`).
    func set(_ value: Bool) {
        wanted.store(value, ordering: .releasing)
    }
}
