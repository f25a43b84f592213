import ReMVVM

/// What a durable backend runs once started: the runtime of a journal (``DurableRuntime``) or of a
/// replica (``ReplicaRuntime``), made by the backend's start and kept in a ``RuntimeSlot``.
protocol BackendRuntime<State>: AnyObject, Sendable {
    /// The state of the store it keeps.
    associatedtype State: StoreState & Codable

    /// Where reads and events get states while it runs.
    var statePublisher: any StatePublisher<State> { get }

    /// Ends it (idempotent): what is queued made durable, the last snapshot written.
    func stop()
}

extension DurableRuntime: BackendRuntime {
    /// Only what the journal made durable: the commit gate.
    var statePublisher: any StatePublisher<State> { gate }
}

extension ReplicaRuntime: BackendRuntime {
    /// What the replica applied from the log.
    var statePublisher: any StatePublisher<State> { publisher }
}
