import ConcurrencyKit
import ReMVVM

/// Where a backend keeps the runtime its start makes, set once: the one start, stop and
/// publisher of ``JournalBackend`` and ``ReplicaBackend``.
///
/// Held inline in its backend (noncopyable, a ``ConcurrencyKit/SetOnceSlot`` inside): a durable
/// request reaches the runtime from the backend with no object between them. (An
/// `AtomicLazyReference<Runtime>` read from code not specialized for the runtime's type cost
/// about 1,100 instructions a load, twice per durable request; a slot of its own, two more cold
/// objects for a store touched once in a while.) Its methods are always inlined: a generic
/// struct's method called from code not specialized for `Runtime` would look up its metadata.
struct RuntimeSlot<Runtime: BackendRuntime>: ~Copyable, Sendable {
    private let slot = SetOnceSlot()

    /// Creates an empty slot.
    init() {}

    /// The runtime, once started.
    var runtime: Runtime? {
        @inline(__always) get {
            guard let object = slot.load() else { return nil }
            // Cannot be another class: only ``start(_:)`` stores, a `Runtime`.
            return unsafeDowncast(object, to: Runtime.self)
        }
    }

    /// Makes the runtime with `make` unless one was made before; returns the runtime made by this
    /// call, nil when another was there first (then the caller has nothing more to set up).
    func start(_ make: () throws -> Runtime) rethrows -> Runtime? {
        guard slot.load() == nil else { return nil }
        let runtime = try make()
        return slot.storeIfNil(runtime) === runtime ? runtime : nil
    }
}
