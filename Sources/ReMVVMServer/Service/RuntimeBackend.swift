import ReMVVM

/// A backend whose work is done by a runtime its start makes (``JournalBackend``,
/// ``ReplicaBackend``): the runtime, the stop and the publisher come from its ``RuntimeSlot``.
protocol RuntimeBackend: StoreBackend {
    /// What its start makes.
    associatedtype Runtime: BackendRuntime<State>

    /// Where its start keeps the runtime.
    var started: RuntimeSlot<Runtime> { get }
}

extension RuntimeBackend {
    /// The runtime, once started.
    var runtime: Runtime? {
        started.runtime
    }

    func stop() {
        started.stop()
    }

    /// The runtime's publisher (only what is durable, or what the replica applied); the store
    /// itself before the start.
    var publisher: any StatePublisher<State> {
        started.publisher(before: store)
    }
}
