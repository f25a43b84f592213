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

    /// ``addPublicationHandler(_:)`` for a handler that wants publications only while `demand`
    /// is set (it checks the demand itself): the source may leave it out meanwhile. Set before a
    /// version is published, the demand lets that version through.
    @discardableResult
    func addPublicationHandler(
        _ handler: @escaping @Sendable (StatePublication<State>) -> Void, demand: PublicationDemand
    ) -> StoreSnapshot<State>

    /// Where versions older than those published since start can be rebuilt (the journal), or
    /// nil: then only the event hub's ring serves streams that resume.
    var history: (any VersionHistory<State>)? { get }
}

extension StatePublisher {
    /// Calls the handler for every version: it checks `demand` itself.
    @discardableResult
    func addPublicationHandler(
        _ handler: @escaping @Sendable (StatePublication<State>) -> Void, demand: PublicationDemand
    ) -> StoreSnapshot<State> {
        addPublicationHandler(handler)
    }

    /// No history: a store in memory keeps no versions but the ones the event hub's ring holds.
    var history: (any VersionHistory<State>)? { nil }
}

extension Store: StatePublisher {}
