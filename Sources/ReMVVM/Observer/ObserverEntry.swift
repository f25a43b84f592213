import Synchronization

/// One registered observer: a weak reference and its calls, already bound to the right substate.
final class ObserverEntry<Root>: @unchecked Sendable {
    // @unchecked: `observer` is a weak reference (loads and stores are atomic in the Swift runtime) and
    // the closures are only called by the store's processing thread, one work item at a time.
    private enum Phase: UInt8 {
        case awaitingFirstCall, active, removed
    }

    private weak var observer: AnyObject?
    private let callWillReduce: (Root) -> Void
    private let callDidReduce: (Root, Root?) -> Void
    private let phase = Atomic<UInt8>(Phase.awaitingFirstCall.rawValue)

    init<Observer: StateObserver>(observer: Observer, resolve: @escaping @Sendable (Root) -> Observer.State?) {
        self.observer = observer
        callWillReduce = { [weak observer] root in
            guard let observer, let state = resolve(root) else { return }
            observer.willReduce(state: state)
        }
        callDidReduce = { [weak observer] root, oldRoot in
            guard let observer, let state = resolve(root) else { return }
            observer.didReduce(state: state, oldState: oldRoot.flatMap(resolve))
        }
    }

    /// Whether this entry stands for `object` and may still be called.
    func represents(_ object: AnyObject) -> Bool {
        isLive && observer === object
    }

    /// False once the observer is removed or deallocated.
    var isLive: Bool {
        phase.load(ordering: .acquiring) != Phase.removed.rawValue && observer != nil
    }

    /// Stops every later call.
    func markRemoved() {
        phase.store(Phase.removed.rawValue, ordering: .releasing)
    }

    /// Makes the first call, `didReduce(current, nil)`, and enables later calls.
    func activate(with state: Root) {
        guard phase.compareExchange(
            expected: Phase.awaitingFirstCall.rawValue,
            desired: Phase.active.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged else { return }
        callDidReduce(state, nil)
    }

    /// Calls `willReduce` if the observer is active.
    func willReduce(_ state: Root) {
        guard isActive else { return }
        callWillReduce(state)
    }

    /// Calls `didReduce` if the observer is active.
    func didReduce(_ state: Root, oldState: Root) {
        guard isActive else { return }
        callDidReduce(state, oldState)
    }

    private var isActive: Bool {
        phase.load(ordering: .acquiring) == Phase.active.rawValue
    }
}
