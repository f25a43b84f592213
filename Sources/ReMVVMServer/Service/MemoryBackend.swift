import Journal
import MicroHTTP
import ReMVVM

/// A store kept in memory only: every version is visible once reduced, the action log holds
/// the newest 1,000 reduces (fewer when many stores share `actionLogMemoryLimit`,
/// ``RecentActions``), and a restart starts again at version 0 (its version tags carry an
/// instance token, ``VersionTags``).
final class MemoryBackend<State: StoreState & Codable>: StoreBackend {
    let store: Store<State>
    private let recentActions: RecentActions
    /// The store as a publisher, boxed once: boxing it at every read looked up the store's
    /// runtime type (every `GET /state`).
    let publisher: any StatePublisher<State>

    /// Keeps `store` in memory; its action log reads the actions' wire names through `codec` and
    /// keeps its share of `actionLogBudget`.
    init(store: Store<State>, codec: ActionJournalCodec, actionLogBudget: SharedBudget) {
        self.store = store
        publisher = store
        recentActions = RecentActions(store: store, codec: codec, budget: actionLogBudget)
    }

    var keptAnswers: (any JournalStorage)? { nil }

    var isDurable: Bool { false }

    func start(keys: IdempotencyKeys, metrics: ServiceMetrics?) {}

    func stop() {
        recentActions.stop()
    }


    var health: StoreHealth { .ok }

    func actionLog(after version: UInt64, limit: Int) -> (records: [JournalRecord], earliest: UInt64?) {
        recentActions.records(after: version, limit: limit)
    }

    /// Dispatches at once and answers at once: nothing to wait for
    /// (``ServedStore/dispatchAtOnce(key:ifMatch:plan:)``).
    func dispatch(
        key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan, in served: ServedStore<State>
    ) -> Response {
        served.dispatchAtOnce(key: key, ifMatch: ifMatch, plan: plan)
    }
}
