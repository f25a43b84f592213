import Journal
import MicroHTTP
import ReMVVM

/// A store kept in memory only: every version is visible once reduced, the action log holds
/// the newest 1,000 reduces, and a restart starts again at version 0 (its version tags carry an
/// instance token, ``VersionTags``).
final class MemoryBackend<State: StoreState & Codable>: StoreBackend {
    let store: Store<State>
    private let recentActions: RecentActions

    /// Keeps `store` in memory; its action log reads the actions' wire names through `codec`.
    init(store: Store<State>, codec: ActionJournalCodec) {
        self.store = store
        recentActions = RecentActions(store: store, codec: codec)
    }

    var keptAnswers: (any JournalStorage)? { nil }

    var isDurable: Bool { false }

    func start(keys: IdempotencyKeys, metrics: ServiceMetrics?) {}

    func stop() {}

    var publisher: any StatePublisher<State> { store }

    var health: StoreHealth { .ok }

    func actionLog(after version: UInt64, limit: Int) -> (records: [JournalRecord], earliest: UInt64?) {
        recentActions.records(after: version, limit: limit)
    }

    /// Dispatches at once and answers at once: nothing to wait for. An answer for an
    /// idempotency key is kept in memory (``IdempotencyKeys``).
    func dispatch(
        key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan, in served: ServedStore<State>
    ) -> Response {
        let condition = IfMatch.condition(ifMatch, tags: served.versionTags)
        guard let key else {
            switch served.planAndDispatch(plan, if: condition) {
            case .dispatched(let answer): return answer.response()
            case .instead(let response, _): return response
            }
        }
        if let answered = served.claim(key) { return answered }
        switch served.planAndDispatch(plan, if: condition) {
        case .instead(let response, _):
            served.idempotencyKeys.release(key)
            return response
        case .dispatched(let answer):
            if answer.isKept {
                served.idempotencyKeys.keep(answer.kept(for: key, time: ActionJournalCodec.now())) { _ in }
            } else {
                served.idempotencyKeys.release(key)
            }
            return answer.response()
        }
    }
}
