import ConcurrencyKit
import ReMVVM

/// Where a backend keeps the runtime its start makes, set once: the one start, stop and
/// publisher of ``JournalBackend`` and ``ReplicaBackend``.
///
/// A ``ConcurrencyKit/SetOnceReference``: an `AtomicLazyReference<Runtime>` read from code not
/// specialized for the runtime's type cost about 1,100 instructions a load, twice per durable
/// request.
final class RuntimeSlot<Runtime: BackendRuntime>: Sendable {
    private let reference = SetOnceReference()

    /// Creates an empty slot.
    init() {}

    /// The runtime, once started.
    var runtime: Runtime? {
        // Cannot be another class: only ``start(_:)`` stores, a `Runtime`.
        reference.load().map { unsafeDowncast($0, to: Runtime.self) }
    }

    /// Makes the runtime with `make` unless one was made before; returns the runtime made by this
    /// call, nil when another was there first (then the caller has nothing more to set up).
    func start(_ make: () throws -> Runtime) rethrows -> Runtime? {
        guard runtime == nil else { return nil }
        let runtime = try make()
        return reference.storeIfNil(runtime) === runtime ? runtime : nil
    }

    /// Stops the runtime, if started.
    func stop() {
        runtime?.stop()
    }

    /// The runtime's publisher, or `store` itself before the start.
    func publisher(before store: Store<Runtime.State>) -> any StatePublisher<Runtime.State> {
        runtime?.statePublisher ?? store
    }
}
