import ConcurrencyKit
import Synchronization

/// Whether a hub wants its store's publications: set while a stream is open or on its way, so
/// that a store nobody follows costs its publisher nothing per version — on the journal's commit
/// thread, for every store of a commit that spans many (`docs/journal.md`).
///
/// A source that knows it (the ``CommitGate``, through
/// ``StatePublisher/addPublicationHandler(_:demand:)``) leaves the handler out of its
/// publications while the demand is unset, and puts it back when it is set
/// (``whenChanged(_:)``): its release then touches neither the handler nor the hub. Other sources
/// call the handler, which loads this one atomic and returns; held strongly by the handler,
/// beside its weak reference to the hub, so the load touches this small object only. A hub that
/// skipped versions catches up from its source's snapshot as its first stream is queued
/// (``ViewModelHub``, ``EventHub/withInboxCaughtUp(_:)``).
final class PublicationDemand: Sendable {
    private let wanted = Atomic<Bool>(false)
    /// Told after each change: the source recomposes its handlers.
    private let changed = Lock<(@Sendable () -> Void)?>(nil)

    /// Whether publications are wanted now.
    var isWanted: Bool { wanted.load(ordering: .acquiring) }

    /// Sets whether publications are wanted (under the hub's inbox lock, with the inbox's own
    /// `listening`), and tells the source when that changed, before returning: a version the
    /// source publishes after this reaches the handler.
    func set(_ value: Bool) {
        guard wanted.exchange(value, ordering: .acquiringAndReleasing) != value else { return }
        changed.withLock { $0 }?()
    }

    /// Calls `action` after every change from now on (one source per demand: a later call
    /// replaces the earlier one).
    func whenChanged(_ action: @escaping @Sendable () -> Void) {
        changed.withLock { $0 = action }
    }
}
