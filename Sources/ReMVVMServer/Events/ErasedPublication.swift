import ReMVVM

/// A publication held without its state's type, with its version beside it: what the queues on
/// the way of every reduce keep (``CommitGate``'s, ``EventHubInbox``'s history). A queue of
/// `StatePublication<State>` in code not specialized for the domain's state looks up its runtime
/// types at every append and removal; a queue of these has them at compile time.
struct ErasedPublication {
    let version: UInt64
    /// A `StatePublication` of the holder's state.
    let object: AnyObject

    init<State: StoreState>(_ publication: StatePublication<State>) {
        version = publication.version
        object = publication
    }

    /// The publication, typed again by a holder of `State`.
    func typed<State: StoreState>(as _: State.Type) -> StatePublication<State> {
        PublicationInbox.publication(object, as: State.self)
    }
}
