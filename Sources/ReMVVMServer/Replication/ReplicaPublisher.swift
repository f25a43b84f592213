import Journal
import ReMVVM

/// What a replica's reads and events see: its store — every version in it was read from the
/// log, hence committed — with the log as the history behind the event ring.
struct ReplicaPublisher<State: StoreState & Codable>: StatePublisher {
    let store: Store<State>
    let history: (any VersionHistory<State>)?

    var snapshot: StoreSnapshot<State> { store.snapshot }

    @discardableResult
    func addPublicationHandler(_ handler: @escaping @Sendable (StatePublication<State>) -> Void) -> StoreSnapshot<State> {
        store.addPublicationHandler(handler)
    }
}
