import ReMVVM

/// Where the event hub and the read routes get states: the store itself (in memory), or the
/// ``CommitGate`` that lets through only what the journal made durable.
protocol StatePublisher<State>: Sendable {
    associatedtype State: StoreState

    /// The newest state that may be shown.
    var snapshot: StoreSnapshot<State> { get }

    /// Receives every later state in version order, starting after the returned snapshot.
    @discardableResult
    func addPublicationHandler(_ handler: @escaping @Sendable (StatePublication<State>) -> Void) -> StoreSnapshot<State>
}

extension Store: StatePublisher {}
