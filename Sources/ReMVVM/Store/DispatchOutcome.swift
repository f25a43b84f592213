import Synchronization

/// What became of actions sent with ``Store/dispatchAndWait(_:)``.
public enum DispatchOutcome: Sendable, Equatable {
    /// At least one reduce happened; `version` is the store version right after the last action's
    /// processing (nested and converted dispatches included).
    case reduced(version: UInt64)
    /// Middleware took the action but did not reduce it (yet): it stopped it, or will call `next` later.
    case accepted
    /// Middleware ended every action with ``Interceptor/leaveUnchanged()``: each would have changed
    /// nothing, so nothing was reduced; `version` is the store's version, which still holds.
    case unchanged(version: UInt64)
    /// A middleware refused the action at `index` with ``Interceptor/reject(reason:)``; later actions
    /// of the batch were not dispatched, earlier ones were.
    case rejected(reason: String, index: Int)
    /// A check added with ``Store/addReduceCheck(_:)`` refused the action at `index` (or one it led
    /// to) just before the reducer: a fault of the server's setup, not of the client (e.g. an action
    /// that cannot be journaled). Later actions of the batch were not dispatched.
    case refused(reason: String, index: Int)
    /// The condition given to ``Store/dispatchAndWait(_:if:)`` did not hold for the version the
    /// store had: nothing was dispatched.
    case preconditionFailed(currentVersion: UInt64)
}

/// Per-action bookkeeping that middleware can write to from any thread.
///
/// Write-once atomic references rather than a lock: one is made per dispatch, and a lock would
/// allocate a mutex each time. Reads, two per action and almost always of nothing, check a plain
/// atomic flag first: `AtomicLazyReference.load()` is not specialized for its type and looks its
/// generic metadata up on every call (about 630 instructions, twice per action).
final class DispatchContext: Sendable {
    private final class Reason: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// ``rejected`` and ``refused`` bits, each set after its reason was stored, and the
    /// ``unchanged`` mark.
    private let recorded = Atomic<UInt8>(0)
    private static let rejected: UInt8 = 1
    private static let refused: UInt8 = 2
    private static let unchanged: UInt8 = 4
    private let rejectionReason = AtomicLazyReference<Reason>()
    private let refusalReason = AtomicLazyReference<Reason>()

    /// Records the first rejection of the action.
    func reject(_ reason: String) {
        record(reason, in: rejectionReason, flag: Self.rejected)
    }

    /// The first rejection reason, if any.
    var rejection: String? {
        reason(in: rejectionReason, flag: Self.rejected)
    }

    /// Records that a middleware ended the action as one that would change nothing.
    func leaveUnchanged() {
        recorded.bitwiseOr(Self.unchanged, ordering: .releasing)
    }

    /// Whether a middleware ended the action with ``Interceptor/leaveUnchanged()``.
    var leftUnchanged: Bool {
        recorded.load(ordering: .acquiring) & Self.unchanged != 0
    }

    /// Records the first refusal by a reduce check.
    func refuse(_ reason: String) {
        record(reason, in: refusalReason, flag: Self.refused)
    }

    /// The first refusal reason, if any.
    var refusal: String? {
        reason(in: refusalReason, flag: Self.refused)
    }

    /// Stores `reason` in `slot` unless one is there, then sets `flag`.
    private func record(_ reason: String, in slot: borrowing AtomicLazyReference<Reason>, flag: UInt8) {
        _ = slot.storeIfNil(Reason(reason))
        recorded.bitwiseOr(flag, ordering: .releasing)
    }

    /// The reason in `slot` once `flag` is set; nil before, without touching `slot`.
    private func reason(in slot: borrowing AtomicLazyReference<Reason>, flag: UInt8) -> String? {
        guard recorded.load(ordering: .acquiring) & flag != 0 else { return nil }
        return slot.load()?.text
    }
}

/// The `next` completions collected on the way down the middleware stack; the innermost runs first.
final class CompletionChain<State>: Sendable {
    private let completion: @Sendable (State) -> Void
    private let outer: CompletionChain<State>?

    private init(completion: @escaping @Sendable (State) -> Void, outer: CompletionChain<State>?) {
        self.completion = completion
        self.outer = outer
    }

    /// `outer` with `completion` added as the new innermost one (no-op for a nil completion).
    static func adding(
        _ completion: (@Sendable (State) -> Void)?,
        to outer: CompletionChain<State>?
    ) -> CompletionChain<State>? {
        guard let completion else { return outer }
        return CompletionChain(completion: completion, outer: outer)
    }

    /// Calls every completion, innermost first.
    func run(with state: State) {
        var node: CompletionChain<State>? = self
        while let current = node {
            current.completion(state)
            node = current.outer
        }
    }
}
