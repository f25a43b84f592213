import Synchronization
import ReMVVM

/// Where a backend keeps the runtime its start makes, set once: the one start, stop and
/// publisher of ``JournalBackend`` and ``ReplicaBackend``.
final class RuntimeSlot<Runtime: BackendRuntime>: Sendable {
    private let reference = AtomicLazyReference<Runtime>()

    /// Creates an empty slot.
    init() {}

    /// The runtime, once started.
    var runtime: Runtime? {
        reference.load()
    }

    /// Makes the runtime with `make` unless one was made before; returns the runtime made by this
    /// call, nil when another was there first (then the caller has nothing more to set up).
    func start(_ make: () throws -> Runtime) rethrows -> Runtime? {
        guard reference.load() == nil else { return nil }
        let runtime = try make()
        return reference.storeIfNil(runtime) === runtime ? runtime : nil
    }

    /// Stops the runtime, if started.
    func stop() {
        reference.load()?.stop()
    }

    /// The runtime's publisher, or `store` itself before the start.
    func publisher(before store: Store<Runtime.State>) -> any StatePublisher<Runtime.State> {
        reference.load()?.statePublisher ?? store
    }
}
