import Journal
import ReMVVM

/// How the stores of a server in memory keep their catalog's `version` and `lastActionAt`
/// (``MemoryStoreCatalog``; a journal keeps them in the transaction of the records).
struct ActivityRecording: Sendable {
    let catalog: MemoryStoreCatalog
    /// The wall clock in milliseconds since 1970.
    let now: @Sendable () -> Int64

    /// Records every version `publisher` publishes as the store `id`'s activity, looked up once
    /// here: the publication path then stores two atomics (``StoreActivity``). Nothing for a
    /// store the catalog does not hold.
    func record<State: StoreState>(_ publisher: any StatePublisher<State>, of id: StoreID) {
        guard let activity = catalog.activity(of: id) else { return }
        publisher.addPublicationHandler { [now] publication in
            activity.record(version: publication.version, at: now())
        }
    }
}
