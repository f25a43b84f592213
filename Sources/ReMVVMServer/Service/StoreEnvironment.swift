import Logging
import ReMVVM

/// What every store a service serves shares: the actions and view models it knows, its
/// settings, metrics and logger, and the count of request connections. A ``ServedStore`` is
/// made from one of these and the store's own backend.
struct StoreEnvironment<State: StoreState & Codable>: Sendable {
    /// Reads and writes the wire form of the actions clients may send.
    let codec: ActionJournalCodec
    /// The view models served, with their commands.
    let viewModels: ViewModelRegistry<State>
    /// The service layer's settings.
    let configuration: ServiceConfiguration
    /// The service's metrics, or nil when they are off.
    let metrics: ServiceMetrics?
    /// The connections that may send requests, as the HTTP server counts them.
    let requestConnections: RequestConnections
    /// Where stores log.
    let logger: Logger
    /// The memory every store's resume ring shares (`replayRingBytes`).
    let replayRingBudget: SharedBudget
    /// The actions the action logs of stores without a journal keep together
    /// (`actionLogMemoryLimit`).
    let actionLogBudget: SharedBudget
    /// The idempotency answers every store keeps in memory without a journal
    /// (`idempotencyMemoryLimit` together).
    let inMemoryAnswers: InMemoryAnswers

    /// The actions clients may send.
    var actions: ActionRegistry { codec.registry }
}
