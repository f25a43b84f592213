import ReMVVM

/// A backend whose work is done by a runtime its start makes (``JournalBackend``,
/// ``ReplicaBackend``), kept in a ``RuntimeSlot`` of its own: the stop and the publisher come
/// from the runtime.
protocol RuntimeBackend: StoreBackend {
    /// What its start makes.
    associatedtype Runtime: BackendRuntime<State>

    /// The runtime, once started (its ``RuntimeSlot``'s).
    var runtime: Runtime? { get }
}

extension RuntimeBackend {
    /// Stops the runtime, if started.
    func stop() {
        runtime?.stop()
    }

    /// The runtime's publisher (only what is durable, or what the replica applied); the store
    /// itself before the start.
    var publisher: any StatePublisher<State> {
        runtime?.statePublisher ?? store
    }
}
